import Foundation
import GRDB

/// Builds a synthetic index and measures search latencies: the figures behind
/// `classify-tool bench --index`.
///
/// The library has `imageCount` images with ~10 stored observations each
/// (3-4 leaves drawn from a Zipf(0.9) popularity over `leafCount` leaves, plus
/// their mid-level and top-level parents). Queries draw labels in proportion to
/// how many images carry them, so popular labels, parents included, are searched
/// most, as people do.
///
/// ```swift
/// let benchmark = TagIndexBenchmark(databaseURL: URL(fileURLWithPath: "/tmp/bench.sqlite"))
/// let result = try benchmark.run { print($0) }
/// print(result.report)
/// ```
public struct TagIndexBenchmark: Sendable {
    /// Sizes of the synthetic library and of the query samples.
    ///
    /// ```swift
    /// var configuration = TagIndexBenchmark.Configuration()
    /// configuration.imageCount = 100_000
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Images in the library.
        public var imageCount = 1_000_000
        /// Leaf labels.
        public var leafCount = 1000
        /// Parent labels (1 in 25 top-level, the rest mid-level).
        public var parentCount = 500
        /// Single-label searches measured.
        public var singleLabelQueries = 300
        /// Three-term boolean searches measured.
        public var booleanQueries = 200
        /// Facet searches measured on the labels whose result sets are closest to `facetResultSize`.
        public var facetQueries = 20
        /// Target size of the facet searches' result sets.
        public var facetResultSize = 100_000
        /// Seed of the generator.
        public var seed: UInt64 = 42

        /// The default: 1,000,000 images, 1,000 leaves, 500 parents.
        ///
        /// ```swift
        /// let configuration = TagIndexBenchmark.Configuration()
        /// ```
        public init() {}
    }

    /// Where the synthetic index is written (replaced if present).
    public let databaseURL: URL
    /// Sizes.
    public let configuration: Configuration

    /// Creates a benchmark.
    ///
    /// ```swift
    /// let benchmark = TagIndexBenchmark(databaseURL: url, configuration: .init())
    /// ```
    public init(databaseURL: URL, configuration: Configuration = Configuration()) {
        self.databaseURL = databaseURL
        self.configuration = configuration
    }

    /// Builds the index, runs the searches and returns the figures.
    ///
    /// ```swift
    /// let result = try benchmark.run(progress: { print($0) })
    /// ```
    public func run(progress: (@Sendable (String) -> Void)? = nil) throws -> TagIndexBenchmarkResult {
        let library = SyntheticLibrary(configuration: configuration)
        let buildStart = Date()
        let (images, observations) = try build(library, progress: progress)
        let buildSeconds = Date().timeIntervalSince(buildStart)
        progress?(String(format: "built %d images, %d observations in %.1f s", images, observations, buildSeconds))

        let index = try TagIndex(url: databaseURL)
        let counts: [(identifier: String, count: Int)] = try index.database.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, image_count FROM labels WHERE image_count > 0 ORDER BY id")
                .map { ($0[0], $0[1]) }
        }
        var random = SyntheticLibrary.Random(state: configuration.seed ^ 0xABCD)
        let total = counts.reduce(0) { $0 + $1.count }
        func popularLabel() -> String {
            var target = Int(random.unit() * Double(total))
            for (identifier, count) in counts {
                target -= count
                if target < 0 { return identifier }
            }
            return counts[counts.count - 1].identifier
        }
        func measure(_ query: Query) throws -> (milliseconds: Double, page: SearchPage) {
            let start = DispatchTime.now().uptimeNanoseconds
            let page = try index.search(query)
            return (Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6, page)
        }
        // Warm the page cache and the taxonomy like a running tool would be.
        for _ in 0..<20 { _ = try measure(Query(.word(popularLabel()))) }

        var single: [Double] = []
        for _ in 0..<configuration.singleLabelQueries {
            single.append(try measure(Query(.word(popularLabel()))).milliseconds)
        }
        progress?("single-label p95 \(LatencySummary(single).p95Text)")

        // The same kind of search with the calibrated high-recall filter, which is what
        // `classify-tool search` and the gallery apply by default (each label of the term's subtree
        // with its own threshold). The synthetic taxonomy has curves, so every label has one.
        var calibrated: [Double] = []
        for _ in 0..<configuration.singleLabelQueries {
            var query = Query(.word(popularLabel()))
            query.calibration = .highRecall
            calibrated.append(try measure(query).milliseconds)
        }
        progress?("single-label high-recall p95 \(LatencySummary(calibrated).p95Text)")

        var boolean: [Double] = [], calibratedBoolean: [Double] = []
        var booleanExamples: [String] = []
        for number in 0..<configuration.booleanQueries {
            let (a, b, c) = (popularLabel(), popularLabel(), popularLabel())
            let text =
                switch number % 4 {
                case 0: "\(a) \(b) -\(c)"
                case 1: "(\(a) OR \(b)) \(c)"
                case 2: "\(a) AND \(b) AND \(c)"
                default: "\(a) OR \(b) OR \(c)"
                }
            if number < 4 { booleanExamples.append(text) }
            boolean.append(try measure(Query(parsing: text)).milliseconds)
            var query = try Query(parsing: text)
            query.calibration = .highRecall
            calibratedBoolean.append(try measure(query).milliseconds)
        }
        progress?("boolean p95 \(LatencySummary(boolean).p95Text), high-recall \(LatencySummary(calibratedBoolean).p95Text)")

        let facetLabels = counts.sorted {
            abs($0.count - configuration.facetResultSize) < abs($1.count - configuration.facetResultSize)
        }.prefix(max(1, configuration.facetQueries / 2))
        var facets: [Double] = []
        var facetSizes: [Int] = []
        for round in 0..<2 {
            for label in facetLabels where facets.count < configuration.facetQueries {
                var query = Query(.word(label.identifier))
                query.facetCount = 20
                let (milliseconds, page) = try measure(query)
                facets.append(milliseconds)
                if round == 0 { facetSizes.append(page.totalCount) }
            }
        }
        progress?("facets p95 \(LatencySummary(facets).p95Text)")

        let bytes = ["", "-wal"].compactMap {
            try? FileManager.default.attributesOfItem(atPath: databaseURL.path + $0)[.size] as? Int
        }.reduce(0, +)
        return TagIndexBenchmarkResult(
            imageCount: images, observationCount: observations, labelCount: counts.count, databaseBytes: bytes,
            buildSeconds: buildSeconds, singleLabel: LatencySummary(single), booleanSearch: LatencySummary(boolean),
            calibratedSingleLabel: LatencySummary(calibrated), calibratedBooleanSearch: LatencySummary(calibratedBoolean),
            facets: LatencySummary(facets), facetResultSizes: facetSizes.sorted(),
            booleanExamples: booleanExamples)
    }

    private func build(_ library: SyntheticLibrary, progress: (@Sendable (String) -> Void)?) throws -> (Int, Int) {
        let start = Date()
        func phase(_ name: String) { progress?(String(format: "  %@ done at %.1f s", name, Date().timeIntervalSince(start))) }
        for suffix in ["", "-wal", "-shm", ".lock"] {
            try? FileManager.default.removeItem(atPath: databaseURL.path + suffix)
        }
        let model = ModelStamp(name: "synthetic", version: "1")
        do {
            let index = try TagIndex(url: databaseURL)
            try index.replaceTaxonomy(library.labels(), model: model)
        }
        var databaseConfiguration = GRDB.Configuration()
        databaseConfiguration.foreignKeysEnabled = false
        let queue = try DatabaseQueue(path: databaseURL.path, configuration: databaseConfiguration)
        // Bulk load: no journal (a failed build is rebuilt from scratch), then back to WAL.
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: """
                PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA cache_size = -524288;
                PRAGMA temp_store = MEMORY; PRAGMA threads = 2
                """)
        }
        let result = try queue.write { db in
            try db.execute(sql: "DROP INDEX observations_by_rank")
            var labelIDs: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT identifier, id FROM labels") { labelIDs[row[0]] = row[1] }
            let modelID = try Int64.fetchOne(
                db, sql: "SELECT id FROM models WHERE name = ? AND version = ?", arguments: [model.name, model.version])!
            phase("schema and taxonomy")
            let counts = try library.load(into: db, labelIDs: labelIDs, modelID: modelID, phase: phase)
            try db.execute(sql: Schema.createRankIndex)
            phase("rank index")
            return (counts.images, counts.observations)
        }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
        return result
    }
}

/// Latency percentiles of a set of searches, in milliseconds.
///
/// ```swift
/// print(result.singleLabel.p95)
/// ```
public struct LatencySummary: Sendable, Hashable {
    /// Number of searches.
    public var count: Int
    /// Median.
    public var p50: Double
    /// 95th percentile.
    public var p95: Double
    /// Slowest.
    public var max: Double

    init(_ milliseconds: [Double]) {
        let sorted = milliseconds.sorted()
        func percentile(_ p: Double) -> Double {
            sorted.isEmpty ? 0 : sorted[Swift.max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1)]
        }
        count = sorted.count
        p50 = percentile(0.5)
        p95 = percentile(0.95)
        max = sorted.last ?? 0
    }

    var p95Text: String { String(format: "%.1f ms", p95) }
}

/// The figures of a ``TagIndexBenchmark`` run.
///
/// ```swift
/// let result = try benchmark.run()
/// print(result.report)
/// ```
public struct TagIndexBenchmarkResult: Sendable, Hashable {
    /// Images indexed.
    public var imageCount: Int
    /// Stored observation rows (leaves and parents).
    public var observationCount: Int
    /// Labels carried by at least one image.
    public var labelCount: Int
    /// Size of the database file (and WAL).
    public var databaseBytes: Int
    /// Time to build the synthetic index.
    public var buildSeconds: Double
    /// First page (50) of a single-label search.
    public var singleLabel: LatencySummary
    /// First page of a three-term boolean search.
    public var booleanSearch: LatencySummary
    /// First page of a single-label search with the high-recall filter (the tool's default).
    public var calibratedSingleLabel: LatencySummary
    /// First page of a three-term boolean search with the high-recall filter.
    public var calibratedBooleanSearch: LatencySummary
    /// First page plus 20 facets of a ~100k-result search.
    public var facets: LatencySummary
    /// Result-set sizes of the facet searches, ascending.
    public var facetResultSizes: [Int]
    /// A few of the boolean queries, to show their shape.
    public var booleanExamples: [String]

    /// A printable report with the targets.
    ///
    /// ```swift
    /// print(result.report)
    /// ```
    public var report: String {
        func row(_ name: String, _ summary: LatencySummary, target: Double) -> String {
            String(
                format: "%@ %5d %9.2f %9.2f %9.2f   p95 <= %.0f ms %@", name.padding(toLength: 28, withPad: " ", startingAt: 0),
                summary.count, summary.p50, summary.p95, summary.max, target, summary.p95 <= target ? "ok" : "MISSED")
        }
        let medianFacetSize = facetResultSizes.isEmpty ? 0 : facetResultSizes[facetResultSizes.count / 2]
        return [
            "TagIndex benchmark",
            String(
                format: "library: %d images, %d observations (%.1f per image), %d labels, %.0f MiB",
                imageCount, observationCount, Double(observationCount) / Double(Swift.max(imageCount, 1)),
                labelCount, Double(databaseBytes) / 1_048_576),
            String(format: "build: %.1f s   (target <= 60 s) %@", buildSeconds, buildSeconds <= 60 ? "ok" : "MISSED"),
            "search                       count   p50 ms    p95 ms    max ms",
            row("single label, first page", singleLabel, target: 20),
            row("3-term boolean, first page", booleanSearch, target: 100),
            row("single label, high-recall", calibratedSingleLabel, target: 20),
            row("3-term boolean, high-recall", calibratedBooleanSearch, target: 100),
            row("facets, ~\(medianFacetSize / 1000)k results", facets, target: 200),
            "boolean shapes: " + booleanExamples.joined(separator: " | "),
        ].joined(separator: "\n")
    }
}
