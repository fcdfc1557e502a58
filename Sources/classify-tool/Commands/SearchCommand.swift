import ArgumentParser
import Classify
import ClassifyIndexing
import Foundation
import TagIndex

/// `classify-tool search QUERY`: find indexed images by label.
///
/// Usage: `classify-tool search '(dog OR cat) -indoor' --under ~/Pictures --format json`
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Find indexed images by what is in them.",
        discussion: """
            Terms are labels, their names or synonyms, and match everything below
            them: `dog` finds golden retrievers. Everyday words (beach, people,
            birthday) come from the search vocabulary and find the labels that are
            evidence for them; words for what the classifier cannot see (sky,
            sunset) say what to try instead; `classify-tool labels WORD` shows what a
            word means. Plurals work (beaches, dogs). Quoted phrases, prefixes
            (retriev*), AND (implicit), OR, NOT or -term, parentheses, and a
            per-term confidence (dog:0.6) work. An empty query matches every
            classified image. Prints one path per line (pipe it to other tools),
            as the bytes the file system has; -0 ends each path with a NUL instead,
            for names that hold a newline (like find -print0: search dog -0 | xargs
            -0 ls). --format json adds scores, sizes and labels; for a name that
            is not UTF-8, "path" is readable text and "pathBytes" the exact bytes
            in base64. The result count goes to stderr.

            Examples:
              classify-tool search dog
              classify-tool search beaches
              classify-tool search '(dog OR cat) -indoor' --under ~/Pictures/2024
              classify-tool search retriev* --format json --facets 10
              classify-tool search dog --filter high-precision --sort date --limit 20
              classify-tool search --failed
              classify-tool search beach --color 012ACF
              classify-tool search dog -0 | xargs -0 cp -t ~/dogs
            """)

    @Argument(help: "The query (words are joined with spaces).") var query: [String] = []
    @Option(help: "Output format.") var format: SearchFormat = .paths
    @Option(help: "Results per page.") var limit = 50
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Result order: confidence, path, date (modified, newest first) or taken (date taken, newest first; the file time for a photo that states none).")
    var sort: SearchSort = .confidence
    @Option(help: "Also count the most frequent labels of the whole result set (0: none).") var facets = 0
    @Option(help: "Only labels with at least this confidence.") var minConfidence: Double?
    @Option(help: ArgumentHelp("Keep labels by their calibrated per-label thresholds: high-recall (the default when the index has calibration curves), high-precision, or none (every stored label, down to confidence 0.01).", valueName: "filter")) var filter: FilterChoice?
    @Option(help: "Keep a label where its curve reaches this precision.") var precision: Double?
    @Option(help: "Keep a label down to where its curve still has this recall.") var recall: Double?
    @Option(help: ArgumentHelp("Only files under this folder (repeatable).", valueName: "path")) var under: [String] = []
    @Option(help: ArgumentHelp("Only these file types, e.g. jpg or png (repeatable).", valueName: "ext")) var type: [String] = []
    @Option(help: ArgumentHelp("Taken on or after this day (the photo's own local time; the file time when it states none), or the start of today, yesterday, this-week, last-week, this-month, last-month, this-year, last-year.", valueName: "yyyy-mm-dd")) var after: String?
    @Option(help: ArgumentHelp("Taken before this day (as --after).", valueName: "yyyy-mm-dd")) var before: String?
    @Option(help: "Minimum width in pixels.") var minWidth: Int?
    @Option(help: "Minimum height in pixels.") var minHeight: Int?
    @Option(help: ArgumentHelp("Minimum file size, e.g. 500KB or 2MB.", valueName: "size")) var minSize: String?
    @Option(help: ArgumentHelp("Maximum file size.", valueName: "size")) var maxSize: String?
    @Option(help: ArgumentHelp("Rank by how much of this color images contain (with or without a query).", valueName: "RRGGBB")) var color: String?
    @Flag(help: "Only images with no label above the threshold.") var untagged = false
    @Flag(help: "Only files that could not be classified (with the reason).") var failed = false
    @Flag(name: [.customShort("0"), .customLong("null")], help: "End each path with a NUL, not a newline (for xargs -0).") var null = false
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    enum SearchFormat: String, ExpressibleByArgument, CaseIterable { case paths, json }
    enum SearchSort: String, ExpressibleByArgument, CaseIterable { case confidence, path, date, taken }

    /// Checks the options while parsing, so a bad value is a usage error (exit 1) with this command's usage.
    func validate() throws {
        if null && format != .paths { throw ValidationError("-0 (--null) goes with the paths format, not --format \(format.rawValue)") }
        var query = Query()
        try apply(to: &query)
    }

    func run() async throws {
        verbosity.apply()
        let text = query.joined(separator: " ")
        var parsed = try Query(commandLine: text)
        try apply(to: &parsed)
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        let result: SearchPage
        var labels: [Int64: [ImageLabel]] = [:]
        var metadata: [Int64: IndexedMetadata] = [:]
        do {
            if filter == nil { parsed.applyDefaultCalibration(indexHasCalibration: try await index.hasCalibration(), onlyWithLabelTerms: false) }
            if let color {
                guard let target = IndexedColor(hex: color) else { throw ValidationError("--color takes a hex color like 012ACF, not '\(color)'") }
                result = try await index.search(color: target, query: parsed)
            } else {
                result = try await index.search(parsed)
            }
            if format == .json {
                labels = try await index.labels(forImageIDs: result.hits.map(\.imageID))
                metadata = try await index.metadata(forImageIDs: result.hits.map(\.imageID))
            }
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        switch format {
        case .paths: printPaths(result)
        case .json: try printJSON(result, text: text, labels: labels, metadata: metadata)
        }
    }

    /// The page as one JSON object, each hit with its ten most confident labels and its date
    /// taken, position, camera and place.
    private func printJSON(_ result: SearchPage, text: String, labels: [Int64: [ImageLabel]], metadata: [Int64: IndexedMetadata]) throws {
        let fields = PhotoMetadataReader.output(for: result.hits, stored: metadata)
        try Terminal.json(JSONOutput.encode(SearchOutput(page: result, query: text, labels: labels, metadata: fields)))
    }

    /// One path per line (with the failure for --failed), the count and facets on stderr.
    private func printPaths(_ result: SearchPage) {
        for hit in result.hits {
            let record = failed ? hit.failureStage.map { "\(hit.path)\t\($0): \(hit.failureReason ?? "")" } ?? hit.path : hit.path
            Terminal.out(record, terminator: null ? 0 : UInt8(ascii: "\n"))
        }
        Terminal.note("\(result.totalCount) result\(result.totalCount == 1 ? "" : "s")\(result.pageCount > 1 ? ", page \(result.page) of \(result.pageCount)" : "")")
        for note in result.notes { Terminal.note("note: " + note) }
        if !result.facets.isEmpty {
            Terminal.note("labels in these results: " + result.facets.map { "\($0.identifier) (\($0.count))" }.joined(separator: ", "))
        }
    }

    /// Command-line options on top of what the query text said.
    func apply(to query: inout Query) throws {
        guard (1...1000).contains(limit), page >= 1 else { throw ValidationError("--limit takes 1...1000 and --page starts at 1") }
        query.limit = limit
        query.page = page
        query.facetCount = max(0, facets)
        switch sort {
        case .confidence: query.sort = .confidence
        case .path: query.sort = .path
        case .date: query.sort = .date
        case .taken: query.sort = .taken
        }
        if let minConfidence {
            guard (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence takes a value from 0 to 1") }
            query.minimumConfidence = minConfidence
        }
        let calibrated = [filter != nil, precision != nil, recall != nil].filter { $0 }.count
        guard calibrated <= 1 else { throw ValidationError("use one of --filter, --precision and --recall") }
        switch filter {
        case .highRecall: query.calibration = .highRecall
        case .highPrecision: query.calibration = .highPrecision
        case .some(.none), nil: break
        }
        if let precision { query.calibration = .minimumRecall(0, forPrecision: precision) }
        if let recall { query.calibration = .minimumPrecision(0, forRecall: recall) }
        query.filters.folders += under.map(Query.folder)
        query.filters.fileTypes += type.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
        for (text, option) in [(after, "--after"), (before, "--before")] {
            guard let text else { continue }
            let start = try Self.day(text, option: option)
            let range = option == "--after" ? LocalTimeRange(lower: start, upper: nil) : LocalTimeRange(lower: nil, upper: start)
            query.filters.taken = query.filters.taken.map { $0.intersected(with: range) } ?? range
        }
        if let minWidth { query.filters.minimumWidth = minWidth }
        if let minHeight { query.filters.minimumHeight = minHeight }
        if let minSize { query.filters.minimumBytes = try Self.bytes(minSize, option: "--min-size") }
        if let maxSize { query.filters.maximumBytes = try Self.bytes(maxSize, option: "--max-size") }
        guard !(untagged && failed) else { throw ValidationError("use --untagged or --failed, not both") }
        if untagged { query.filters.status = .untagged }
        if failed { query.filters.status = .failed }
    }

    /// A date option's value (see ``FilterValue/date(_:timeZone:)``: a bare date is local midnight).
    static func day(_ text: String, option: String) throws -> String {
        guard let start = LocalTimeRange.period(text)?.start ?? RelativeDays.range(text, today: RelativeDays.today())?.lower else {
            throw ValidationError("\(option) takes a date like 2024, 2024-01 or 2024-01-31 (or 2024-01-31T12:00), or last-month, not '\(text)'")
        }
        return start
    }

    /// A size option's value (see ``FilterValue/bytes(_:)``).
    static func bytes(_ text: String, option: String) throws -> Int64 {
        guard let bytes = FilterValue.bytes(text) else { throw ValidationError("\(option) takes a size like 500KB, 2MB or 1GB, not '\(text)'") }
        return bytes
    }
}
