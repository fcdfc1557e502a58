import Foundation
import PostgresNIO
import TagIndex
import TagIndexPostgres
import GRDB

/// Builds a synthetic library of feature prints and measures similarity search and
/// near-duplicate grouping: the figures behind the benchmark in docs/similarity.md ("Speed").
///
/// Prints are sparse non-negative random vectors (like pooled ReLU features), one family of
/// three near copies every 50 images; images sit in folders of 10,000 (`/bench/d0`, ...).
///
/// ```swift
/// let result = try SimilarityBenchmark(databaseURL: URL(fileURLWithPath: "/tmp/similar.sqlite")).run()
/// print(result.report)
/// ```
package struct SimilarityBenchmark: Sendable {
    /// Where the synthetic index is written (replaced if present).
    package let databaseURL: URL
    /// Images in the library.
    package let imageCount: Int
    /// Images grouped by the duplicates measurement (the first folders of 10,000).
    package let duplicateImageCount: Int
    /// Similarity searches measured.
    package let searches: Int

    /// Creates a benchmark.
    ///
    /// ```swift
    /// let benchmark = SimilarityBenchmark(databaseURL: url, imageCount: 100_000)
    /// ```
    package init(databaseURL: URL, imageCount: Int = 100_000, duplicateImageCount: Int = 10_000, searches: Int = 30) {
        self.databaseURL = databaseURL
        self.imageCount = imageCount
        self.duplicateImageCount = duplicateImageCount
        self.searches = searches
    }

    /// Builds the library, runs the measurements and returns the figures.
    ///
    /// ```swift
    /// let result = try benchmark.run { print($0) }
    /// ```
    package func run(progress: (@Sendable (String) -> Void)? = nil) throws -> SimilarityBenchmarkResult {
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: databaseURL.path + suffix) }
        let buildStart = Date()
        try build()
        progress?(String(format: "built %d prints in %.1f s", imageCount, Date().timeIntervalSince(buildStart)))
        let index = try SQLiteIndex(url: databaseURL)
        func milliseconds(_ body: () throws -> Void) rethrows -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        }
        var probe = (0..<3).map { "/bench/d\(($0 * 7_919) % imageCount / 10_000)/\(($0 * 7_919) % imageCount).jpg" }
        for path in probe { _ = try index.similar(toPath: path) }  // warm the page cache
        probe = probePaths
        var all: [Double] = []
        var copiesFound = 0
        for path in probe {
            var query = Query()
            query.limit = 20
            var page: SearchPage?
            all.append(try milliseconds { page = try index.similar(toPath: path, query: query) })
            if let score = page?.hits.first?.score, score > 0.9 { copiesFound += 1 }
        }
        progress?("similar, all images: p95 \(LatencySummary(all).p95Text)")
        var filtered: [Double] = []
        for path in probe {
            let query = try Query(parsing: "under:/bench/d1")
            filtered.append(try milliseconds { _ = try index.similar(toPath: path, query: query) })
        }
        progress?("similar under one folder: p95 \(LatencySummary(filtered).p95Text)")
        let folders = (0..<max(1, duplicateImageCount / 10_000)).map { "under:/bench/d\($0)" }.joined(separator: " ")
        var groups: [DuplicateGroup] = []
        let duplicateQuery = duplicateImageCount >= imageCount ? Query() : try Query(parsing: folders)
        let duplicateMilliseconds = try milliseconds { groups = try index.duplicateGroups(query: duplicateQuery) }
        let grouped = try index.database.read { db in
            try PrintMatrix.load(db, query: duplicateQuery, taxonomy: index.taxonomy(db)).ids.count
        }
        progress?(String(format: "duplicates over %d images: %.0f ms, %d groups", grouped, duplicateMilliseconds, groups.count))
        return SimilarityBenchmarkResult(
            imageCount: imageCount, search: LatencySummary(all), folderSearch: LatencySummary(filtered),
            duplicateImageCount: grouped, duplicateMilliseconds: duplicateMilliseconds, duplicateGroups: groups.count,
            expectedGroups: (grouped + 49) / 50, copiesFound: copiesFound, searches: probe.count)
    }

    /// The images whose neighbours are searched, spread over the library.
    private var probePaths: [String] {
        (0..<searches).map { number in
            let id = (number * 104_729 + 13) % imageCount
            return "/bench/d\(id / 10_000)/\(id).jpg"
        }
    }

    /// After ``run(progress:)``: copies the library into the empty PostgreSQL database `target`
    /// (as `classify-tool copy` does) and times the same similarity searches there, the prints
    /// streamed from the server in blocks. Returns the searches over every image and under one
    /// folder.
    ///
    /// ```swift
    /// let (all, folder) = try await benchmark.runOnPostgres(try PostgresDescriptor(parsing: url))
    /// ```
    package func runOnPostgres(_ target: PostgresDescriptor, progress: (@Sendable (String) -> Void)? = nil) async throws -> (search: LatencySummary, folderSearch: LatencySummary) {
        let session = try await PostgresSession.connect(target)
        do {
            let start = Date()
            _ = try await IndexCopy.copy(from: try SQLiteIndex(readingFrom: databaseURL), to: session, pageSize: 2000)
            try await session.execute("VACUUM ANALYZE")
            progress?(String(format: "copied into PostgreSQL in %.1f s", Date().timeIntervalSince(start)))
        } catch {
            await session.close()
            throw error
        }
        await session.close()
        let index = try await PostgresIndex.open(target)
        do {
            func milliseconds(_ body: () async throws -> Void) async rethrows -> Double {
                let start = DispatchTime.now().uptimeNanoseconds
                try await body()
                return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            }
            for path in probePaths.prefix(3) { _ = try await index.similar(toPath: path) }  // warm the server's cache
            var all: [Double] = [], filtered: [Double] = []
            for path in probePaths {
                var query = Query()
                query.limit = 20
                all.append(try await milliseconds { _ = try await index.similar(toPath: path, query: query) })
            }
            progress?("PostgreSQL similar, all images: p95 \(LatencySummary(all).p95Text)")
            for path in probePaths {
                let query = try Query(parsing: "under:/bench/d1")
                filtered.append(try await milliseconds { _ = try await index.similar(toPath: path, query: query) })
            }
            await index.close()
            return (LatencySummary(all), LatencySummary(filtered))
        } catch {
            await index.close()
            throw error
        }
    }

    private func build() throws {
        var configuration = GRDB.Configuration()
        configuration.foreignKeysEnabled = false
        do { _ = try SQLiteIndex(url: databaseURL) }  // schema
        let queue = try DatabaseQueue(path: databaseURL.path, configuration: configuration)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        }
        var state: UInt64 = 0x5EED
        func unit() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        try queue.write { db in
            let insert = try db.makeStatement(sql: """
                INSERT INTO images(id, path, size, mtime, indexed_at, width, height, feature_print)
                VALUES (?, ?, ?, 0, 0, ?, ?, ?)
                """)
            var familyBase: [Float] = []
            for id in 0..<imageCount {
                var print: [Float]
                if id % 50 < 3 {
                    // A family: the original and two perturbed copies.
                    if id % 50 == 0 { familyBase = (0..<FeaturePrint.dimension).map { _ in let v = unit(); return v < 0.6 ? 0 : v * 3 } }
                    print = id % 50 == 0 ? familyBase : familyBase.map { max(0, $0 * (1 + (unit() - 0.5) * 0.2)) }
                } else {
                    print = (0..<FeaturePrint.dimension).map { _ in let v = unit(); return v < 0.6 ? 0 : v * 3 }
                }
                let width = id % 50 == 0 ? 4000 : 1000
                try insert.execute(arguments: [
                    id + 1, "/bench/d\(id / 10_000)/\(id).jpg", 100_000, width, width * 3 / 4,
                    Data(try FeaturePrint.encode(print)),
                ])
            }
        }
        try queue.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.close()
    }
}

/// The figures of a ``SimilarityBenchmark`` run.
///
/// ```swift
/// print(result.report)
/// ```
package struct SimilarityBenchmarkResult: Sendable, Hashable {
    /// Images with a print.
    package var imageCount: Int
    /// `similar` over every image, first page of 20.
    package var search: LatencySummary
    /// `similar` restricted to one folder of 10,000 images.
    package var folderSearch: LatencySummary
    /// Images grouped by the duplicates measurement.
    package var duplicateImageCount: Int
    /// Time to group them.
    package var duplicateMilliseconds: Double
    /// Groups found.
    package var duplicateGroups: Int
    /// Families planted among them.
    package var expectedGroups: Int
    /// Searches whose best hit was a planted copy (score > 0.9).
    package var copiesFound: Int
    /// Searches run.
    package var searches: Int

    /// A printable report with the targets.
    ///
    /// ```swift
    /// print(result.report)
    /// ```
    package var report: String {
        [
            "Similarity benchmark (\(imageCount) fp16 feature prints)",
            "search                       count   p50 ms    p95 ms    max ms",
            String(format: "similar, all images           %5d %9.2f %9.2f %9.2f   p95 <= 100 ms %@", search.count, search.p50, search.p95, search.max, search.p95 <= 100 ? "ok" : "MISSED"),
            String(format: "similar, one folder (10k)     %5d %9.2f %9.2f %9.2f", folderSearch.count, folderSearch.p50, folderSearch.p95, folderSearch.max),
            String(format: "duplicates over %d images: %.0f ms (target <= 5000 ms) %@; %d groups (%d planted)",
                   duplicateImageCount, duplicateMilliseconds, duplicateMilliseconds <= 5_000 ? "ok" : "MISSED", duplicateGroups, expectedGroups),
        ].joined(separator: "\n")
    }
}
