import ArgumentParser
import Classify
import ClassifyIndexing
import Foundation
import TagIndex

/// `classify-tool labels [PATTERN]`: browse the taxonomy, with image counts from the index, and
/// say what a search word of the vocabulary means.
///
/// Usage: `classify-tool labels retriever --db photos.sqlite`
struct LabelsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "labels",
        abstract: "List the labels the classifier knows, with parents, synonyms and image counts.",
        discussion: """
            PATTERN matches identifiers, display names and synonyms (case-insensitive
            substring; exact matches first). When an index exists, each label shows how
            many indexed images carry it (itself or a label below it, at any stored
            confidence: the images `classify-tool search LABEL` finds).

            When PATTERN is a word of the search vocabulary (beach, people, sunset;
            plurals too), the table first says what the word means: the labels it
            searches and why, or why the classifier cannot see it and what to try.

            Examples:
              classify-tool labels retriever
              classify-tool labels beach
              classify-tool labels --used --db photos.sqlite
              classify-tool labels --parents-only --format json
            """)

    @Argument(help: "Only labels matching this text.") var pattern: String?
    @Flag(help: "Only group labels (not the network's own classes).") var parentsOnly = false
    @Flag(help: "Only labels that indexed images carry, most frequent first.") var used = false
    @Option(help: "Output format.") var format: DetailFormat = .table
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        verbosity.apply()
        let model = try modelOptions.loadModel()
        let taxonomy = model.labelSet.taxonomy
        let index = try await existingIndex()
        defer { if let index { Task { await index.close() } } }
        let counts: [String: Int]?
        do {
            counts = try await index?.labelImageCounts()
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        var needle = pattern?.lowercased().replacingOccurrences(of: "_", with: " ")
        var explainedWord = false
        if let pattern, let meaning = try await meaning(of: pattern, model: model, index: index) {
            if meaning.word != nil, format == .table {
                try await explain(meaning, index: index)
                explainedWord = true
            }
            // `dogs` lists what `dog` lists.
            if !meaning.isFreeText { needle = meaning.matchedName }
        }
        var labels = taxonomy.labels.filter { label in
            if parentsOnly && label.isLeaf { return false }
            if used && counts?[label.identifier] == nil { return false }
            guard let needle else { return true }
            // Under a word's meaning, only names with a word starting with it (beach wagon for beach,
            // not husky for sky).
            return (Self.matchRank(label, needle) ?? 4) <= (explainedWord ? 2 : 3)
        }
        if let needle {
            // Exact names first, then names with a word starting with the pattern, then the rest.
            labels = labels.enumerated().sorted { left, right in
                let (a, b) = (Self.matchRank(left.element, needle) ?? 4, Self.matchRank(right.element, needle) ?? 4)
                return a != b ? a < b : left.offset < right.offset
            }.map(\.element)
        }
        if used, let counts {
            labels = labels.enumerated().sorted { left, right in
                let (a, b) = (counts[left.element.identifier, default: 0], counts[right.element.identifier, default: 0])
                return a != b ? a > b : left.offset < right.offset
            }.map(\.element)
        }
        if format == .json {
            let objects = labels.map { label in
                LabelOutput(
                    identifier: label.identifier, displayName: label.displayName, parents: label.parents, synonyms: label.synonyms,
                    classes: taxonomy.classIndices(below: label.index).count, images: counts.map { $0[label.identifier, default: 0] },
                    wnid: label.wordNetID)
            }
            try Terminal.json(JSONOutput.encode(objects))
            return
        }
        for label in labels {
            let classes = label.isLeaf ? "class" : "\(taxonomy.classIndices(below: label.index).count) classes"
            let images = counts.map { counts in
                let count = counts[label.identifier, default: 0]
                return "; \(count) image\(count == 1 ? "" : "s")"
            } ?? ""
            Terminal.out("\(label.identifier)  (\(label.displayName); \(classes)\(images))")
            if !label.parents.isEmpty { Terminal.out("    parents: \(label.parents.joined(separator: ", "))") }
            Terminal.out("    synonyms: \(label.synonyms.joined(separator: ", "))")
        }
        if labels.isEmpty && !explainedWord {
            Terminal.note(used ? "no indexed image carries a label matching '\(pattern ?? "")'" : "no label matches '\(pattern ?? "")'")
        }
    }

    /// What `pattern` means to search, from the index when it has a vocabulary (that is what search
    /// uses), else from the model's files; nil when it names nothing.
    private func meaning(of pattern: String, model: ImageClassifierModel, index: (any IndexBackend)?) async throws -> TermMeaning? {
        var source = index
        if let index, model.labelSet.vocabulary != nil, try await index.vocabulary().isEmpty {
            Terminal.note("the index at \(database.displayLocation) has no search vocabulary yet; run classify-tool index to install it")
            source = nil
        }
        if source == nil {
            let scratch = try SQLiteIndex.inMemory()
            try IndexVocabulary(model: model).install(into: scratch)
            source = scratch
        }
        do {
            return try await source!.meaning(of: pattern)
        } catch TagIndexError.unknownLabel {
            return nil
        }
    }

    /// Prints what a vocabulary word means: its labels and why, or why the classifier cannot see it.
    private func explain(_ meaning: TermMeaning, index: (any IndexBackend)?) async throws {
        guard let word = meaning.word else { return }
        let typed = meaning.term.lowercased().replacingOccurrences(of: "_", with: " ").split(separator: " ").joined(separator: " ")
        let from = typed == meaning.matchedName ? "" : ", from '\(meaning.term)'"
        var images = ""
        if let index, !meaning.isUnsupported {
            // As for labels: every image that carries one of its labels (or, for a word with faces,
            // enough faces) at any stored confidence.
            var query = Query(.word(meaning.matchedName))
            query.limit = 1
            if let count = try? await index.search(query).totalCount { images = "; \(count) image\(count == 1 ? "" : "s")" }
        }
        if let explanation = word.unsupportedExplanation {
            if let faces = meaning.facesAtLeast {
                Terminal.out("\(meaning.matchedName)  (search word the classifier cannot see, searched by faces\(from)\(images))")
                Terminal.out("    means: images with \(faces) or more faces (faces:\(faces)+)")
            } else {
                Terminal.out("\(meaning.matchedName)  (search word the classifier cannot see\(from))")
            }
            Terminal.out("    \(explanation)")
        } else {
            Terminal.out("\(meaning.matchedName)  (search word\(from)\(images))")
            // The name's own labels first (a word that widens a name), then the word's, as curated.
            var ordered: [String] = []
            for label in meaning.namedLabels + word.labels where !ordered.contains(label) { ordered.append(label) }
            Terminal.out("    means: \(ordered.joined(separator: " OR "))")
        }
        Terminal.out("    why: \(word.reason)")
        if let faces = word.facesAtLeast, word.unsupportedExplanation == nil || meaning.facesAtLeast == nil {
            if meaning.facesAtLeast != nil {
                Terminal.out("    with faces: also images with \(faces) or more faces (faces:\(faces)+)")
            } else {
                Terminal.out("    with faces: once faces are indexed, also images with \(faces) or more faces (faces:\(faces)+)")
            }
        }
    }

    /// How well `label` matches `needle` (lowercase), best first: 0 its identifier or display name,
    /// 1 a synonym, 2 a word of a name starting with it, 3 a substring; nil for no match.
    static func matchRank(_ label: LabelTaxonomy.Label, _ needle: String) -> Int? {
        let own = [label.identifier.replacingOccurrences(of: "_", with: " "), label.displayName.lowercased()]
        let names = own + label.synonyms.map { $0.lowercased() }
        if own.contains(needle) { return 0 }
        if names.contains(needle) { return 1 }
        let separators = CharacterSet.alphanumerics.inverted
        if names.contains(where: { name in name.components(separatedBy: separators).contains { $0.hasPrefix(needle) } }) { return 2 }
        if names.contains(where: { $0.contains(needle) }) { return 3 }
        return nil
    }

    /// The index, or nil when there is none (and `--db` was not given).
    private func existingIndex() async throws -> (any IndexBackend)? {
        guard database.given != nil || FileManager.default.fileExists(atPath: database.location.path) else {
            if used {
                Terminal.error("error: --used needs an index; none at \(database.location.path)")
                throw ExitCode(ToolExit.failure)
            }
            Terminal.debug("no index at \(database.location.path): showing the taxonomy without image counts")
            return nil
        }
        Terminal.debug("image counts from \(database.displayLocation)")
        return try await database.openBackend()
    }
}
