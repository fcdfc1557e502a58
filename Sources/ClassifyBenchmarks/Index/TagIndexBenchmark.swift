import Foundation
import PostgresNIO
import TagIndex
import TagIndexPostgres
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
package struct TagIndexBenchmark: Sendable {
    /// Sizes of the synthetic library and of the query samples.
    ///
    /// ```swift
    /// var configuration = TagIndexBenchmark.Configuration()
    /// configuration.imageCount = 100_000
    /// ```
    package struct Configuration: Sendable, Hashable {
        /// Images in the library.
        package var imageCount = 1_000_000
        /// Leaf labels.
        package var leafCount = 1000
        /// Parent labels (1 in 25 top-level, the rest mid-level).
        package var parentCount = 500
        /// Single-label searches measured.
        package var singleLabelQueries = 300
        /// Three-term boolean searches measured.
        package var booleanQueries = 200
        /// Facet searches measured on the labels whose result sets are closest to `facetResultSize`.
        package var facetQueries = 20
        /// Target size of the facet searches' result sets.
        package var facetResultSize = 100_000
        /// Seed of the generator.
        package var seed: UInt64 = 42

        /// The default: 1,000,000 images, 1,000 leaves, 500 parents.
        ///
        /// ```swift
        /// let configuration = TagIndexBenchmark.Configuration()
        /// ```
        package init() {}
    }

    /// Where the synthetic index is written (replaced if present).
    package let databaseURL: URL
    /// Sizes.
    package let configuration: Configuration

    /// Creates a benchmark.
    ///
    /// ```swift
    /// let benchmark = TagIndexBenchmark(databaseURL: url, configuration: .init())
    /// ```
    package init(databaseURL: URL, configuration: Configuration = Configuration()) {
        self.databaseURL = databaseURL
        self.configuration = configuration
    }

    /// Builds the index, runs the searches and returns the figures.
    ///
    /// ```swift
    /// let result = try await benchmark.run(progress: { print($0) })
    /// ```
    package func run(progress: (@Sendable (String) -> Void)? = nil) async throws -> TagIndexBenchmarkResult {
        let library = SyntheticLibrary(configuration: configuration)
        let buildStart = Date()
        let (images, observations) = try build(library, progress: progress)
        let buildSeconds = Date().timeIntervalSince(buildStart)
        progress?(String(format: "built %d images, %d observations in %.1f s", images, observations, buildSeconds))

        let index = try SQLiteIndex(url: databaseURL)
        let searches = try await workload().run(progress: progress) { try index.search($0) }
        let bytes = ["", "-wal"].compactMap {
            try? FileManager.default.attributesOfItem(atPath: databaseURL.path + $0)[.size] as? Int
        }.reduce(0, +)
        return TagIndexBenchmarkResult(
            backend: "SQLite", imageCount: images, observationCount: observations, labelCount: searches.labelCount,
            databaseBytes: bytes, buildSeconds: buildSeconds, searches: searches)
    }

    /// After ``run(progress:)``: copies the synthetic index into the empty PostgreSQL database
    /// `target` (as `classify-tool copy` does) and runs the same searches there, drawn from the
    /// same seed, so the two backends answer the same queries. With `copying: false` the
    /// database already holds the library (an earlier run's copy with the same configuration)
    /// and is only searched.
    ///
    /// ```swift
    /// let postgres = try await benchmark.runOnPostgres(try PostgresDescriptor(parsing: url))
    /// ```
    package func runOnPostgres(_ target: PostgresDescriptor, copying: Bool = true, progress: (@Sendable (String) -> Void)? = nil) async throws -> TagIndexBenchmarkResult {
        let source = try SQLiteIndex(readingFrom: databaseURL)
        let session = try await PostgresSession.connect(target)
        let copyStart = Date()
        var imageCount = 0, observationCount = 0
        do {
            if copying {
                let summary = try await IndexCopy.copy(from: source, to: session, pageSize: 2000)
                (imageCount, observationCount) = (summary.count(of: "images"), summary.count(of: "observations"))
                // Index-only scans need the visibility map a VACUUM writes, as autovacuum would soon.
                try await session.execute("VACUUM ANALYZE")
            } else {
                let counts = try await session.all("SELECT (SELECT COUNT(*) FROM images), (SELECT COUNT(*) FROM observations)") {
                    try $0.decode((Int64, Int64).self)
                }
                (imageCount, observationCount) = (Int(counts.first?.0 ?? 0), Int(counts.first?.1 ?? 0))
                guard imageCount == configuration.imageCount else {
                    throw TagIndexError.invalidInput("\(target) holds \(imageCount) images, not the \(configuration.imageCount) of this library")
                }
                // A copy made before the postings existed is migrated with every block changed:
                // compact it, as the first index run after the upgrade would.
                try await PostgresSchema.migrate(session)
                let compactStart = Date()
                let rebuilt = try await PostgresPostings.compact(session)
                if rebuilt > 0 {
                    try await session.execute("VACUUM ANALYZE label_posting_groups")
                    progress?(String(format: "compacted the postings of %d blocks in %.1f s", rebuilt, Date().timeIntervalSince(compactStart)))
                }
            }
        } catch {
            await session.close()
            throw error
        }
        await session.close()
        let copySeconds = Date().timeIntervalSince(copyStart)
        if copying { progress?(String(format: "copied into PostgreSQL in %.1f s", copySeconds)) }
        let index = try await PostgresIndex.open(target)
        do {
            let searches = try await workload(counts: labelCounts(source)).run(progress: progress) { try await index.search($0) }
            let bytes = try await index.databaseBytes()
            await index.close()
            return TagIndexBenchmarkResult(
                backend: "PostgreSQL", imageCount: imageCount, observationCount: observationCount,
                labelCount: searches.labelCount, databaseBytes: Int(bytes), buildSeconds: copying ? copySeconds : -1, searches: searches)
        } catch {
            await index.close()
            throw error
        }
    }

    /// Labels carried by at least one image, with their image counts, in id order.
    private func labelCounts(_ index: SQLiteIndex) throws -> [(identifier: String, count: Int)] {
        try index.database.read { db in
            try Row.fetchAll(db, sql: "SELECT identifier, image_count FROM labels WHERE image_count > 0 ORDER BY id")
                .map { ($0[0], $0[1]) }
        }
    }

    /// The searches, drawn from the built index's label counts.
    private func workload(counts: [(identifier: String, count: Int)]? = nil) throws -> SearchWorkload {
        let counts = try counts ?? labelCounts(SQLiteIndex(readingFrom: databaseURL))
        return try SearchWorkload(counts: counts, configuration: configuration)
    }

    private func build(_ library: SyntheticLibrary, progress: (@Sendable (String) -> Void)?) throws -> (Int, Int) {
        let start = Date()
        func phase(_ name: String) { progress?(String(format: "  %@ done at %.1f s", name, Date().timeIntervalSince(start))) }
        for suffix in ["", "-wal", "-shm", ".lock"] {
            try? FileManager.default.removeItem(atPath: databaseURL.path + suffix)
        }
        let model = ModelStamp(name: "synthetic", version: "1")
        do {
            let index = try SQLiteIndex(url: databaseURL)
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
package struct LatencySummary: Sendable, Hashable {
    /// Number of searches.
    package var count: Int
    /// Median.
    package var p50: Double
    /// 95th percentile.
    package var p95: Double
    /// Slowest.
    package var max: Double

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

/// The figures of a ``TagIndexBenchmark`` run on one backend.
///
/// ```swift
/// let result = try await benchmark.run()
/// print(result.report)
/// ```
package struct TagIndexBenchmarkResult: Sendable, Hashable {
    /// "SQLite" or "PostgreSQL".
    package var backend: String
    /// Images indexed.
    package var imageCount: Int
    /// Stored observation rows (leaves and parents).
    package var observationCount: Int
    /// Labels carried by at least one image.
    package var labelCount: Int
    /// Size of the database file (and WAL), or of the PostgreSQL database.
    package var databaseBytes: Int
    /// Time to build the synthetic index (SQLite) or to copy it in (PostgreSQL; -1 when an earlier copy was reused).
    package var buildSeconds: Double
    /// The search latencies.
    package var searches: SearchLatencies

    /// A printable report with the targets.
    ///
    /// ```swift
    /// print(result.report)
    /// ```
    package var report: String {
        func row(_ name: String, _ summary: LatencySummary, target: Double) -> String {
            String(
                format: "%@ %5d %9.2f %9.2f %9.2f   p95 <= %.0f ms %@", name.padding(toLength: 28, withPad: " ", startingAt: 0),
                summary.count, summary.p50, summary.p95, summary.max, target, summary.p95 <= target ? "ok" : "MISSED")
        }
        let sizes = searches.facetResultSizes
        let medianFacetSize = sizes.isEmpty ? 0 : sizes[sizes.count / 2]
        let build = backend == "SQLite"
            ? String(format: "build: %.1f s   (target <= 60 s) %@", buildSeconds, buildSeconds <= 60 ? "ok" : "MISSED")
            : buildSeconds < 0 ? "copy from SQLite: an earlier run's, reused" : String(format: "copy from SQLite: %.1f s", buildSeconds)
        return [
            "TagIndex benchmark, \(backend)",
            String(
                format: "library: %d images, %d observations (%.1f per image), %d labels, %.0f MiB",
                imageCount, observationCount, Double(observationCount) / Double(Swift.max(imageCount, 1)),
                labelCount, Double(databaseBytes) / 1_048_576),
            build,
            "search                       count   p50 ms    p95 ms    max ms",
            row("single label, first page", searches.singleLabel, target: 20),
            row("3-term boolean, first page", searches.booleanSearch, target: 100),
            row("single label, high-recall", searches.calibratedSingleLabel, target: 20),
            row("3-term boolean, high-recall", searches.calibratedBooleanSearch, target: 100),
            row("facets, ~\(medianFacetSize / 1000)k results", searches.facets, target: 200),
            "boolean shapes: " + searches.booleanExamples.joined(separator: " | "),
        ].joined(separator: "\n")
    }
}
