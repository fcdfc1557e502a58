import ArgumentParser
import Classify
import Foundation

/// `classify-tool labels [PATTERN]`: browse the taxonomy.
struct LabelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "List the labels the classifier knows, with parents and synonyms.",
        discussion: """
            PATTERN matches identifiers, display names and synonyms (case-insensitive substring).

            Examples:
              classify-tool labels retriever
              classify-tool labels --parents-only
            """)

    @Argument(help: "Only labels matching this text.") var pattern: String?
    @Flag(help: "Only group labels (not the network's own classes).") var parentsOnly = false
    @Option(help: "Output format: table or json.") var format: OutputFormat = .table
    @OptionGroup var modelOptions: ModelOptions

    func run() throws {
        let taxonomy = try modelOptions.loadModel().labelSet.taxonomy
        let needle = pattern?.lowercased().replacingOccurrences(of: "_", with: " ")
        let labels = taxonomy.labels.filter { label in
            if parentsOnly && label.isLeaf { return false }
            guard let needle else { return true }
            return ([label.identifier.replacingOccurrences(of: "_", with: " "), label.displayName] + label.synonyms)
                .contains { $0.lowercased().contains(needle) }
        }
        if format == .json || format == .jsonl {
            let objects = labels.map { label -> [String: Any] in
                var object: [String: Any] = ["identifier": label.identifier, "displayName": label.displayName, "parents": label.parents,
                                             "synonyms": label.synonyms, "classes": taxonomy.classIndices(below: label.index).count]
                if let wnid = label.wordNetID { object["wnid"] = wnid }
                return object
            }
            Terminal.out(String(decoding: try JSONSerialization.data(withJSONObject: objects, options: [.sortedKeys]), as: UTF8.self))
            return
        }
        for label in labels {
            let classes = label.isLeaf ? "class" : "\(taxonomy.classIndices(below: label.index).count) classes"
            Terminal.out("\(label.identifier)  (\(label.displayName); \(classes))")
            if !label.parents.isEmpty { Terminal.out("    parents: \(label.parents.joined(separator: ", "))") }
            Terminal.out("    synonyms: \(label.synonyms.joined(separator: ", "))")
        }
        if labels.isEmpty { Terminal.error("no label matches '\(pattern ?? "")'") }
    }
}
