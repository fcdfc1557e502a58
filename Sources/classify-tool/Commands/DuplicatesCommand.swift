import ArgumentParser
import Foundation
import TagIndex

/// `classify-tool duplicates`: groups of near-duplicate photos, with a suggested keeper.
struct DuplicatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "Find groups of near-duplicate photos in the index.",
        discussion: """
            Two images are near-duplicates when their feature prints score at
            least --threshold (the same shot resized, recompressed, slightly
            cropped or brightened); a group is every image connected that way.
            Largest groups first; the first path of a group (marked "keep") has
            the largest resolution. --pairs lists the scored pairs instead.

            Examples:
              classify-tool duplicates
              classify-tool duplicates --threshold 0.9 --format json
            """)

    @Option(help: "Similarity score (0..1) at which two images are near-duplicates.")
    var threshold = SQLiteIndex.defaultDuplicateThreshold
    @Option(help: "Only images matching this search (labels and filters).") var query: String?
    @Option(help: ArgumentHelp("Only files under this folder (repeatable).", valueName: "path")) var under: [String] = []
    @Flag(help: "List every pair at or above the threshold (score, path, path) instead of groups.") var pairs = false
    @Option(help: "Output format: paths or json.") var format: SearchCommand.SearchFormat = .paths
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        guard (0...1).contains(threshold) else { throw ValidationError("--threshold takes 0...1") }
    }

    func run() async throws {
        verbosity.apply()
        var parsed = try Query(commandLine: query, under: under)
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        do {
            parsed.applyDefaultCalibration(indexHasCalibration: try await index.hasCalibration(), onlyWithLabelTerms: true)
            if pairs {
                try report(try await index.similarPairs(minimumScore: threshold, query: parsed))
            } else {
                try report(try await index.duplicateGroups(threshold: threshold, query: parsed))
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
    }

    /// Prints the pairs at or above the threshold.
    private func report(_ found: [SimilarPair]) throws {
        switch format {
        case .paths:
            for pair in found { Terminal.out(String(format: "%.4f\t", pair.score) + pair.first + "\t" + pair.second) }
        case .json:
            try Terminal.json(JSONOutput.encode(found.map(SimilarPairOutput.init)))
        }
        Terminal.note("\(found.count) pair\(found.count == 1 ? "" : "s") at or above \(threshold)")
    }

    /// Prints the groups, keeper first.
    private func report(_ groups: [DuplicateGroup]) throws {
        switch format {
        case .paths:
            for (number, group) in groups.enumerated() {
                if number > 0 { Terminal.out("") }
                for (position, member) in group.members.enumerated() {
                    let size = member.width.flatMap { w in member.height.map { "\(w)x\($0)" } } ?? "?"
                    Terminal.out(String(format: "%@\t%.4f\t%@\t%@", position == 0 ? "keep" : "dup", member.score, size, member.path))
                }
            }
        case .json:
            try Terminal.json(JSONOutput.encode(groups.map { DuplicateGroupOutput($0) }))
        }
        let images = groups.reduce(0) { $0 + $1.members.count }
        Terminal.note("\(groups.count) group\(groups.count == 1 ? "" : "s") of near-duplicates (\(images) images, \(images - groups.count) could go) at threshold \(threshold)")
    }
}
