import Foundation
import Testing
@testable import TagIndex

/// Runs the index benchmark when TAGINDEX_BENCH=1 (use a release build:
/// `TAGINDEX_BENCH=1 swift test -c release --filter BenchmarkTests`).
/// TAGINDEX_BENCH_IMAGES overrides the library size; TAGINDEX_BENCH_DB keeps the index.
@Suite struct BenchmarkTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["TAGINDEX_BENCH"] == "1" }

    @Test(.enabled(if: BenchmarkTests.enabled)) func indexBenchmark() async throws {
        let directory = try TemporaryDirectory()
        var configuration = TagIndexBenchmark.Configuration()
        if let images = ProcessInfo.processInfo.environment["TAGINDEX_BENCH_IMAGES"].flatMap(Int.init) {
            configuration.imageCount = images
        }
        // TAGINDEX_BENCH_DB keeps the built index at that path for inspection.
        let url = ProcessInfo.processInfo.environment["TAGINDEX_BENCH_DB"].map { URL(fileURLWithPath: $0) }
            ?? directory.databaseURL
        let result = try await TagIndexBenchmark(databaseURL: url, configuration: configuration)
            .run { print("bench:", $0) }
        print(result.report)
        #expect(result.imageCount == configuration.imageCount)
        #expect(result.searches.singleLabel.count == configuration.singleLabelQueries)
    }

    /// A library of `images` with 50 leaves and 25 parents, `queries` single-label searches.
    static func small(images: Int, queries: Int) -> TagIndexBenchmark.Configuration {
        var configuration = TagIndexBenchmark.Configuration()
        configuration.imageCount = images
        configuration.leafCount = 50
        configuration.parentCount = 25
        configuration.singleLabelQueries = queries
        configuration.booleanQueries = 8
        configuration.facetQueries = 2
        configuration.facetResultSize = images / 4
        return configuration
    }

    @Test func smallBenchmarkProducesAReport() async throws {
        let directory = try TemporaryDirectory()
        let configuration = Self.small(images: 2_000, queries: 10)
        let result = try await TagIndexBenchmark(databaseURL: directory.databaseURL, configuration: configuration).run()
        #expect(result.imageCount == 2_000)
        #expect(result.observationCount > 10_000)
        #expect(result.searches.facets.count == 2)
        #expect(result.report.contains("single label, first page"))
        let index = try TagIndex(url: directory.databaseURL)
        #expect(try index.statistics().imageCount == 2_000)
        #expect(try index.search("thing_0").totalCount > 100)
        // The bulk-built postings mirror the observations, and both engines agree on them.
        #expect(try await index.database.read(Postings.matchObservations))
        for text in ["category_0 group_1 -thing_2", "(thing_0 OR thing_1) group_2", "thing_3 OR category_0"] {
            var query = try Query(parsing: text)
            query.facetCount = 5
            var sql = query
            sql.engine = .sql
            #expect(try index.search(query) == index.search(sql), "\(text)")
        }
    }

    /// The PostgreSQL leg copies the same library and answers the same searches with the same
    /// result sizes.
    @Test func postgresLegAnswersTheSameSearches() async throws {
        guard PostgresTestServer.isAvailable else { try Test.cancel(PostgresTestServer.skipReason) }
        let directory = try TemporaryDirectory()
        let benchmark = TagIndexBenchmark(databaseURL: directory.databaseURL, configuration: Self.small(images: 1_000, queries: 6))
        let sqlite = try await benchmark.run()
        let postgres = try await benchmark.runOnPostgres(try await PostgresTestServer.freshDatabase())
        #expect(postgres.backend == "PostgreSQL" && postgres.report.contains("TagIndex benchmark, PostgreSQL"))
        #expect(postgres.imageCount == sqlite.imageCount && postgres.observationCount == sqlite.observationCount)
        #expect(postgres.searches.facetResultSizes == sqlite.searches.facetResultSizes)
        #expect(postgres.searches.singleLabel.count == 6 && postgres.searches.facets.count == 2)
        #expect(postgres.searches.booleanSearch.count == 8)
        #expect(postgres.searches.booleanExamples == sqlite.searches.booleanExamples)
    }
}
