import Foundation
import GRDB
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// Free text over label names in memory (for backends without FTS5) against SQLite's FTS5 table.
@Suite struct LabelTextIndexTests {
    static let labels = FixtureIndex.labels + [
        LabelDefinition(identifier: "jack-o'-lantern", displayName: "Jack-o'-Lantern", synonyms: ["Café crème", "naïve_bayes", "ÉCLAIR au chocolat"]),
        LabelDefinition(identifier: "x_ray_tube", displayName: "X-ray tube 2000", synonyms: ["crt", "Röntgen_röhre"]),
        LabelDefinition(identifier: "golden_gate", displayName: "Golden Gate", synonyms: ["bridge", "retriever of ships"]),
    ]

    @Test func freeTextMatchesFTS5() throws {
        let index = try SQLiteIndex.inMemory()
        try index.replaceTaxonomy(Self.labels, model: FixtureIndex.model)
        let probes: [([String], SearchTerm.Kind)] = [
            (["golden"], .word), (["retriever"], .word), (["golden", "retriever"], .word), (["golden", "retriever"], .phrase),
            (["retriever", "golden"], .phrase), (["retr"], .prefix), (["gold"], .prefix), (["golden", "ret"], .prefix), (["retriever", "gol"], .prefix), (["coated", "ret"], .prefix),
            (["lantern"], .word), (["jack", "o"], .phrase), (["o", "lantern"], .phrase), (["cafe"], .word), (["café"], .word),
            (["CREME"], .word), (["naive"], .word), (["bayes"], .word), (["eclair"], .word), (["ecl"], .prefix), (["x", "ray"], .phrase),
            (["2000"], .word), (["200"], .prefix), (["rontgen"], .word), (["rohre"], .word), (["röntgen", "röhre"], .phrase),
            (["of"], .word), (["retriever", "of"], .phrase), (["ships"], .word), (["bridge"], .prefix), (["flat", "coated"], .phrase),
            (["coated", "retriever"], .word), (["tabby", "cat"], .phrase), (["cat"], .word), (["ca"], .prefix), (["kitty"], .word),
            (["chocolat"], .word), (["au", "chocolat"], .phrase), (["puppy", "dog"], .word), (["nothing"], .word), (["z"], .prefix),
        ]
        let memory = try index.database.read { db in LabelTextIndex(try index.taxonomy(db)) }
        for (words, kind) in probes {
            let fts = try index.database.read { db in try LabelLookup.sqlite(db).freeText(words, kind) }
            #expect(memory.matches(words, kind: kind) == fts, "\(words) \(kind)")
        }
        #expect(!memory.matches(["golden"], kind: .word).isEmpty, "the probes match something")
    }

    /// A phrase lies within one name of a label: it never runs from one synonym into the next,
    /// whichever lookup found the label (FTS5 and the in-memory index both see one synonym column).
    @Test func aPhraseStaysWithinOneName() throws {
        let index = try SQLiteIndex.inMemory()
        try index.replaceTaxonomy(Self.labels, model: FixtureIndex.model)
        try index.database.read { db in
            let taxonomy = try index.taxonomy(db)
            let gate = try #require(taxonomy.labels.first { $0.value.identifier == "golden_gate" }?.key)
            let lookups: [(String, LabelLookup)] = [
                ("FTS5", .sqlite(db)), ("memory", .preloaded(labelText: LabelTextIndex(taxonomy), imageCounts: [:], addedLabelIDs: [])),
            ]
            for (name, lookup) in lookups {
                let resolver = TermResolver(lookup: lookup, taxonomy: taxonomy)
                #expect(try resolver.searched(for: SearchTerm("retriever of", kind: .phrase, offset: 0)).labels == [gate], "\(name)")
                #expect(try resolver.searched(for: SearchTerm("retriever of sh", kind: .prefix, offset: 0)).labels == [gate], "\(name)")
                for (text, kind) in [("bridge retriever", SearchTerm.Kind.phrase), ("bridge retr", .prefix), ("creme naive", .phrase)] {
                    #expect(throws: TagIndexError.self, "\(name): \(text)") { try resolver.searched(for: SearchTerm(text, kind: kind, offset: 0)) }
                }
            }
        }
    }
}

/// Searches on a PostgreSQL index (a copy of the fixture) against the same searches on SQLite:
/// terms resolve against the taxonomy stored in PostgreSQL.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresIndexTests {
    @Test func searchesAnswerAsOnSQLite() async throws {
        let fixture = try FixtureIndex()
        _ = try fixture.index.addLabel("poodle", to: ["/lib/b/flat1.jpg"])
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        _ = try await IndexCopy.copy(from: fixture.index, to: session)
        await session.close()
        let index = try await PostgresIndex.open(descriptor)
        defer { Task { await index.close() } }
        #expect(try await index.statistics() == fixture.index.statistics())

        let texts = PostgresSearchPageTests.queries + [
            "poodle", "retriever", "golden retriever", "\"golden retriever\"", "kitty", "puppies", "lab", "coated", "flat coated",
            "gold*", "poo*", "seaside OR grass", "(cat OR dog) filter:high-precision", "poodle precision:0.95",
        ]
        for text in texts {
            for facets in [0, 4] {
                var query = try Query(parsing: text)
                query.facetCount = facets
                let expected = try fixture.index.search(query)
                let actual = try await index.search(query)
                #expect(actual == expected, "\(text)")
            }
        }
        // Unknown labels: the same error and suggestions.
        for text in ["doge", "retreiver", "zzzz"] {
            let expected = #expect(throws: TagIndexError.self) { try fixture.index.search(text) }
            let actual = await #expect(throws: TagIndexError.self) { try await index.search(text) }
            #expect(actual == expected, "\(text)")
        }
    }

    @Test func anUnmigratedDatabaseIsRefused() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        await #expect(throws: TagIndexError.olderSchema(path: descriptor.description, missingMigrations: PostgresSchema.migrationIdentifiers.sorted())) {
            _ = try await PostgresIndex.open(descriptor)
        }
    }
}
