import ArgumentParser
import Foundation
import TagIndex

/// `classify-tool tag add|remove|clear PATH... LABEL`, `tag list`: corrections that survive re-indexing.
///
/// Usage: `classify-tool tag remove IMG_1.jpg dog`
struct TagCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tag",
        abstract: "Correct labels: add or remove them, list corrections.",
        discussion: """
            Corrections are kept apart from what the model said, keyed by the file's
            content, so they follow a moved file and survive re-indexing and a new
            model. An added label counts with confidence 1; a removed label goes with
            every label below it (removing dog removes its breed), and a label above
            it stays only where another of its children holds it. A name outside the
            taxonomy becomes your own label, found by its exact name or a prefix.
            Search, show and export all see the corrected labels.

            Examples:
              classify-tool tag add IMG_1.jpg IMG_2.jpg grandma
              classify-tool tag remove wolf.jpg dog
              classify-tool tag clear wolf.jpg dog
              classify-tool tag list
            """,
        subcommands: [Add.self, Remove.self, Clear.self, List.self])

    /// `tag add PATH... LABEL`.
    ///
    /// Usage: `classify-tool tag add IMG_1.jpg "golden retriever"`
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a label to images (a new name becomes your own label).",
            discussion: "Example:\n  classify-tool tag add IMG_1.jpg IMG_2.jpg grandma")
        @OptionGroup var target: CorrectionTarget
        func run() async throws { try await target.correct(.add) }
    }

    /// `tag remove PATH... LABEL`.
    ///
    /// Usage: `classify-tool tag remove IMG_1.jpg dog`
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a label, and the labels below it, from images.",
            discussion: "Example:\n  classify-tool tag remove wolf.jpg dog")
        @OptionGroup var target: CorrectionTarget
        func run() async throws { try await target.correct(.remove) }
    }

    /// `tag clear PATH... LABEL`.
    ///
    /// Usage: `classify-tool tag clear IMG_1.jpg dog`
    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take back a correction: the images get the model's labels again.",
            discussion: "Example:\n  classify-tool tag clear wolf.jpg dog")
        @OptionGroup var target: CorrectionTarget
        func run() async throws { try await target.correct(.clear) }
    }

    /// `tag list`.
    ///
    /// Usage: `classify-tool tag list --format json`
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List every correction, newest first.",
            discussion: "Example:\n  classify-tool tag list --format json")
        @Option(help: "Output format.") var format: DetailFormat = .table
        @OptionGroup var database: DatabaseOptions
        @OptionGroup var verbosity: VerbosityOptions

        func run() async throws {
            verbosity.apply()
            let index = try await database.openBackend()
            defer { Task { await index.close() } }
            let corrections: [LabelCorrection]
            do {
                corrections = try await index.corrections()
            } catch {
                Terminal.error("error: \(error)")
                throw ExitCode(ToolExit.failure)
            }
            if format == .json {
                try Terminal.json(JSONOutput.encode(corrections.map(CorrectionOutput.init)))
                return
            }
            let stamp = Date.ISO8601FormatStyle()
            for correction in corrections {
                let label = correction.displayName + (correction.isUserLabel ? " (your label)" : "")
                let paths = correction.paths.isEmpty ? "(no indexed file has this content now)" : correction.paths.joined(separator: ", ")
                Terminal.out("\(stamp.format(correction.date))  \(correction.kind == .added ? "added  " : "removed")  \(label)\t\(paths)")
            }
            Terminal.note("\(corrections.count) correction\(corrections.count == 1 ? "" : "s")")
        }
    }
}

/// The `PATH... LABEL` arguments of `tag add`, `remove` and `clear`.
///
/// Usage: `@OptionGroup var target: CorrectionTarget`
struct CorrectionTarget: ParsableArguments {
    @Argument(help: ArgumentHelp("Indexed files, then the label (identifier, name, synonym, or a name of your own).", valueName: "path... label"))
    var items: [String] = []
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    enum Action { case add, remove, clear }

    func validate() throws {
        guard items.count >= 2 else { throw ValidationError("give one or more files, then the label") }
    }

    func correct(_ action: Action) async throws {
        verbosity.apply()
        let label = items.last!
        let paths = items.dropLast().map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        let report: CorrectionReport
        do {
            // A named library's path (photos:/2024/a.jpg) is kept as written.
            let paths = zip(items.dropLast(), paths).map { LibraryRoot.isLibraryPath($0) ? $0 : $1 }
            let index = try await database.openBackend()
            defer { Task { await index.close() } }
            switch action {
            case .add: report = try await index.addLabel(label, to: paths)
            case .remove: report = try await index.removeLabel(label, from: paths)
            case .clear: report = try await index.clearCorrection(of: label, on: paths)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        for outcome in report.outcomes {
            if let failure = outcome.failure { Terminal.error("error: \(outcome.path): \(failure)") }
        }
        let done = report.outcomes.filter { $0.failure == nil }.count
        let verb = switch action { case .add: "added"; case .remove: "removed"; case .clear: "cleared the correction of" }
        let kind = report.label.isUserLabel ? " (your own label, outside the taxonomy)" : ""
        Terminal.note("\(verb) '\(report.label.displayName)'\(kind) on \(done) image\(done == 1 ? "" : "s")")
        if done < report.outcomes.count { throw ExitCode(done == 0 ? ToolExit.failure : ToolExit.someFilesFailed) }
    }
}
