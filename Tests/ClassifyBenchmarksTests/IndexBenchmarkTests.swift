import Foundation
import TagIndexTestSupport
import Testing
@testable import ClassifyBenchmarks
import ClassifyTestSupport
import TagIndex
import TagIndexPostgres

/// The index benchmark's synthetic library and workload on small runs: what they build and
/// search, never how fast (the timed runs are `classify-bench index`).
@Suite struct IndexBenchmarkTests {
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
        let directory = try ScratchFolder("bench")
        let configuration = Self.small(images: 2_000, queries: 10)
        let result = try await TagIndexBenchmark(databaseURL: directory.url.appending(path: "index.sqlite"), configuration: configuration).run()
        #expect(result.imageCount == 2_000)
        #expect(result.observationCount > 10_000)
        #expect(result.searches.facets.count == 2)
        #expect(result.report.contains("single label, first page"))
        let index = try SQLiteIndex(url: directory.url.appending(path: "index.sqlite"))
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
        let directory = try ScratchFolder("bench")
        let benchmark = TagIndexBenchmark(databaseURL: directory.url.appending(path: "index.sqlite"), configuration: Self.small(images: 1_000, queries: 6))
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
