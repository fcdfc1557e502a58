import ClassifyTestSupport
import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Seeded random searches of the whole language (terms, operators, filters, thresholds, calibrated
/// filters, orders, pages, facets) on the fixture with corrections, asked of SQLite and of its
/// PostgreSQL copy: every page, total, facet list and error must be the same; every fourth query
/// also narrows a color search and a similar-images search.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct BackendAgreementTests {
    static let pieces = [
        "dog", "cat", "animal", "retriev*", "\"golden retriever\"", "puppy", "kitty", "lab", "beach", "grass", "outdoor",
        "indoor", "poodle", "tabby", "grandma", "gr*", "dog:0.85", "animal:0.6", "-dog", "-indoor", "NOT cat", "OR", "OR",
        "AND", "(dog OR cat)", "(beach -grass)", "under:/lib/a", "under:/lib/b", "type:png", "type:jpg", "min:0.6",
        "minwidth:1500", "maxsize:1MB", "after:2023-11-16", "before:2023-11-19", "untagged", "failed", "filter:high-precision",
        "filter:high-recall", "precision:0.9", "recall:0.8", "faces:0", "-(animal OR outdoor)",
    ]

    /// What a search gave: its page, or the error's text.
    static func outcome(_ search: () async throws -> SearchPage) async -> String {
        do {
            let page = try await search()
            return "\(page.totalCount) \(page.hits.map { "\($0.path)=\($0.score)" }) \(page.facets.map { "\($0.identifier)=\($0.count)" })"
        } catch {
            return "error: \(error)"
        }
    }

    @Test func randomSearchesAnswerTheSameOnBothBackends() async throws {
        let fixture = try FixtureIndex()
        _ = try fixture.index.addLabel("grandma", to: ["/lib/a/golden1.jpg", "/lib/c/beach1.jpg"])
        _ = try fixture.index.removeLabel("dog", from: ["/lib/b/poodle1.jpg"])
        _ = try fixture.index.addLabel("poodle", to: ["/lib/a/lab1.png"])
        try fixture.index.write(batch: Self.printsAndColors())
        let postgres = try await BackendIndex.make(.postgresql, copying: fixture)
        var generator = SeededRandom(seed: 20_261_127)
        var answered = 0, similarFound = 0, colorFound = 0
        for round in 0..<400 {
            let count = Int.random(in: 1...6, using: &generator)
            let text = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }.joined(separator: " ")
            guard var query = try? Query(parsing: text) else { continue }
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: query.sort = .confidence
            case 1: query.sort = .path
            default: query.sort = .date
            }
            query.limit = [1, 2, 3, 50].randomElement(using: &generator)!
            query.page = Int.random(in: 1...3, using: &generator)
            query.facetCount = [0, 3, 20].randomElement(using: &generator)!
            if Int.random(in: 0..<4, using: &generator) == 0 { query.minimumConfidence = [0.3, 0.7].randomElement(using: &generator)! }
            let expected = await Self.outcome { try fixture.index.search(query) }
            let actual = await Self.outcome { try await postgres.search(query) }
            #expect(actual == expected, "\(text) sort \(query.sort) limit \(query.limit) page \(query.page) facets \(query.facetCount)")
            if !expected.hasPrefix("error") { answered += 1 }
            guard round % 4 == 0 else { continue }
            let color = IndexedColor(red: 60, green: 90, blue: 200)
            let colored = await Self.outcome { try fixture.index.search(color: color, query: query) }
            #expect(await Self.outcome { try await postgres.search(color: color, query: query) } == colored, "color \(text)")
            if !colored.hasPrefix("0 ") && !colored.hasPrefix("error") { colorFound += 1 }
            let similar = await Self.outcome { try fixture.index.similar(toPath: "/lib/v/p2.jpg", query: query, minimumScore: 0.3) }
            #expect(await Self.outcome { try await postgres.similar(toPath: "/lib/v/p2.jpg", query: query, minimumScore: 0.3) }
                == similar, "similar \(text)")
            if !similar.hasPrefix("0 ") && !similar.hasPrefix("error") { similarFound += 1 }
        }
        #expect(answered > 200, "most random searches answer")
        #expect(similarFound > 10 && colorFound > 10, "similar and color searches find something")
    }

    /// 24 images with feature prints, dominant colors and one label each, under /lib/a, /lib/b and /lib/v.
    static func printsAndColors() -> [IndexEntry] {
        var prints = SyntheticPrints(state: 5)
        return (0..<24).map { number in
            .classified(ImageClassification(
                path: "/lib/\(["a", "b", "v"][number % 3])/p\(number).\(number % 4 == 0 ? "png" : "jpg")", size: Int64(number * 100_000),
                modificationTime: FixtureIndex.date(days: Double(number % 9)), contentHash: "p\(number)", width: 1000 + number * 50,
                height: 1000, model: FixtureIndex.model,
                observations: [LabelConfidence(identifier: ["beach", "poodle", "tabby", "grass"][number % 4], confidence: 0.3 + Double(number % 7) / 10)],
                featurePrint: prints.photo(),
                dominantColors: [IndexedColor(red: UInt8(number * 10), green: 90, blue: UInt8(255 - number * 10), weight: 0.7)]))
        }
    }

    /// The fixture written by PostgreSQL's own writer (taxonomy writer and batch writer, as an
    /// index run writes) searches as the SQLite fixture does: the same files, scores, totals and
    /// facets, color and similar pages, and the same statistics.
    @Test func theFixtureWrittenByThePostgreSQLWriterSearchesAsSQLite() async throws {
        let fixture = try FixtureIndex()
        try fixture.index.write(batch: Self.printsAndColors())
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        try await PostgresSchema.migrate(session)
        try await PostgresTaxonomyWriter.install(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: [], session)
        let taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
        try await session.transaction { session in
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            _ = try await writer.store(FixtureIndex.entries + Self.printsAndColors())
            try await writer.flushCounts()
        }
        await session.close()
        let postgres = try await PostgresIndex.open(descriptor)
        #expect(try await postgres.statistics() == fixture.index.statistics())
        /// A page without image ids (each backend numbers its own rows).
        func rendered(_ page: SearchPage) -> String {
            "\(page.totalCount) \(page.hits.map { "\($0.path)=\($0.score) \($0.size) \($0.modificationTime) \($0.width ?? 0)x\($0.height ?? 0) \($0.failureStage ?? "")" }) \(page.facets)"
        }
        for text in PostgresSearchPageTests.queries + ["puppy", "kitty", "\"golden retriever\"", "gold*", "NOT animal", "-animal -outdoor"] {
            for (limit, page, facets) in [(50, 1, 0), (2, 2, 5), (3, 1, 20)] {
                var query = try Query(parsing: text)
                query.limit = limit
                query.page = page
                query.facetCount = facets
                #expect(try rendered(await postgres.search(query)) == rendered(fixture.index.search(query)), "\(text) limit \(limit) page \(page) facets \(facets)")
                let color = IndexedColor(red: 60, green: 90, blue: 200)
                #expect(try rendered(await postgres.search(color: color, query: query)) == rendered(fixture.index.search(color: color, query: query)), "color \(text)")
                #expect(try rendered(await postgres.similar(toPath: "/lib/v/p2.jpg", query: query, minimumScore: 0.3))
                    == rendered(fixture.index.similar(toPath: "/lib/v/p2.jpg", query: query, minimumScore: 0.3)), "similar \(text)")
            }
        }
    }
}
