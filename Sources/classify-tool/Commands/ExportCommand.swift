import ArgumentParser
import ClassifyExport
import Foundation
import TagIndex

/// `classify-tool export [QUERY] --xmp | --format csv|jsonl`: labels where other tools read them.
///
/// Usage: `classify-tool export dog --xmp --sidecar-name photo.jpg.xmp`
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write labels to XMP sidecars, or export rows as CSV or JSON Lines.",
        discussion: """
            With --xmp, each image of the query's results (or every classified image)
            gets its kept labels in its XMP sidecar: dc:subject (flat keywords) and
            lr:hierarchicalSubject (taxonomy paths such as animal|dog|retriever), which
            digiKam, Lightroom and darktable read. An existing sidecar is parsed and
            rewritten with everything else kept; the keywords of the previous export
            are replaced, the others (yours, other tools') stay. A sidecar that cannot
            be parsed is reported and left untouched. Writes are atomic. Prints one
            line per image: created, updated, unchanged, skipped or failed.

            With --format, prints one row per image (path, size, dimensions, dates,
            kept labels with confidences, corrections, faces: a count in CSV, boxes
            and confidences in JSON Lines) to stdout as it reads them.
            Labels you corrected with `classify-tool tag` are exported as corrected.

            Exit status: 2 when some sidecars could not be written.

            Examples:
              classify-tool export --xmp --dry-run
              classify-tool export dog --xmp --sidecar-name photo.jpg.xmp
              classify-tool export --format csv > labels.csv
              classify-tool export 'beach -people' --format jsonl --filter none
            """)

    @Argument(help: "A search query choosing the images (default: all).") var query: [String] = []
    @Flag(help: "Write XMP sidecars next to the images.") var xmp = false
    @Option(help: ArgumentHelp("Print rows instead: csv or jsonl.", valueName: "format")) var format: RowFormat?
    @Option(help: ArgumentHelp("Which labels to export: high-precision (the default when the index has calibration curves), high-recall, or none (every stored label).", valueName: "filter")) var filter: FilterChoice?
    @Option(help: ArgumentHelp("Sidecar name: photo.xmp (Lightroom, digiKam's compatible mode) or photo.jpg.xmp (darktable, digiKam's default).", valueName: "name")) var sidecarName: SidecarNaming = .replacingExtension
    @Flag(help: "Report what would be written without writing.") var dryRun = false
    @Option(help: ArgumentHelp("Only files under this folder (repeatable).", valueName: "path")) var under: [String] = []
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    enum RowFormat: String, ExpressibleByArgument, CaseIterable { case csv, jsonl }

    func validate() throws {
        guard xmp != (format != nil) else { throw ValidationError("choose one of --xmp and --format csv|jsonl") }
        if format != nil && dryRun { throw ValidationError("--dry-run goes with --xmp") }
    }

    func run() async throws {
        verbosity.apply()
        let text = query.joined(separator: " ")
        var selection = text.isEmpty && under.isEmpty ? nil : try Query(commandLine: text.isEmpty ? nil : text, under: under)
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        do {
            let hasCalibration = try await index.hasCalibration()
            selection?.applyDefaultCalibration(indexHasCalibration: hasCalibration, onlyWithLabelTerms: true)
            let labelFilter: CalibratedFilter?
            switch filter {
            case .none?: labelFilter = nil
            case .highRecall?: labelFilter = .highRecall
            case .highPrecision?: labelFilter = .highPrecision
            case nil: labelFilter = hasCalibration ? .highPrecision : nil
            }
            if let format {
                try await exportRows(index, selection, labelFilter, format == .csv ? .csv : .jsonl)
            } else {
                try await exportSidecars(index, selection, labelFilter)
            }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
    }

    private func exportRows(_ index: any IndexBackend, _ selection: Query?, _ filter: CalibratedFilter?, _ format: RecordFormat) async throws {
        if let header = format.header { Terminal.out(header) }
        var count = 0
        try await index.exportRecords(matching: selection, filter: filter) { record in
            Terminal.out(format.line(for: record))
            count += 1
        }
        Terminal.note("\(count) row\(count == 1 ? "" : "s")")
    }

    private func exportSidecars(_ index: any IndexBackend, _ selection: Query?, _ filter: CalibratedFilter?) async throws {
        let exporter = SidecarExporter(naming: sidecarName, dryRun: dryRun)
        var counts: [String: Int] = [:]
        try await index.exportRecords(matching: selection, filter: filter) { record in
            let result = exporter.export(record)
            let word: String
            switch result.outcome {
            case .created: word = "created"
            case .updated: word = "updated"
            case .unchanged: word = "unchanged"
            case .skipped(let reason):
                word = "skipped"
                Terminal.note("skipped\t\(result.imagePath)\t\(reason)")
            case .failed(let error):
                word = "failed"
                Terminal.error("failed\t\(error)")
            }
            counts[word, default: 0] += 1
            if word != "skipped" && word != "failed" {
                Terminal.out("\(word)\t\(result.sidecarPath)\t\(result.keywords.subjects.joined(separator: ", "))")
            }
        }
        let order = ["created", "updated", "unchanged", "skipped", "failed"]
        let total = counts.values.reduce(0, +)
        let parts = order.compactMap { word in counts[word].map { "\($0) \(word)" } }
        Terminal.note("\(total) image\(total == 1 ? "" : "s")\(dryRun ? " (dry run, nothing written)" : ""): " + (parts.isEmpty ? "none" : parts.joined(separator: ", ")))
        if counts["failed", default: 0] > 0 { throw ExitCode(ToolExit.someFilesFailed) }
    }
}

extension SidecarNaming: ExpressibleByArgument {}
