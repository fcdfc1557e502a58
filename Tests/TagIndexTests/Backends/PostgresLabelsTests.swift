import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex

/// What `classify-tool labels` reads, on a PostgreSQL copy of a SQLite index: the same image
/// counts per label, the same vocabulary and the same meaning of every kind of term.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresLabelsTests {
    static let words: [VocabularyWord] = [
        VocabularyWord(word: "pet", labels: ["dog", "cat"], reason: "dogs and cats"),
        VocabularyWord(word: "indoor", labels: ["indoor", "tabby"], reason: "widens indoor: cats live indoors"),
        VocabularyWord(word: "sky", unsupported: "The classifier cannot see the sky.", reason: "no class is the sky"),
    ]

    @Test func countsVocabularyAndMeaningsAreTheSameOnBothBackends() async throws {
        let fixture = try FixtureIndex()
        try fixture.index.replaceTaxonomy(FixtureIndex.labels, model: FixtureIndex.model, vocabulary: Self.words)
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }

        let counts = try fixture.index.labelImageCounts()
        #expect(counts["dog"] == 4 && counts["animal"] == 5 && counts["indoor"] == 3, "\(counts)")
        #expect(try await postgres.labelImageCounts() == counts)
        let words = try await postgres.vocabulary()
        #expect(words.map(\.word) == ["indoor", "pet", "sky"])
        #expect(words == (try fixture.index.vocabulary()))

        for term in ["pet", "pets", "indoor", "sky", "golden", "seaside", "retriever", "Golden Retriever", "dogs"] {
            let expected = try fixture.index.meaning(of: term)
            #expect(try await postgres.meaning(of: term) == expected, "\(term)")
        }
        #expect(try fixture.index.meaning(of: "pet").labels == ["cat", "dog"])
        await #expect(throws: TagIndexError.self) { try await postgres.meaning(of: "zebra") }
    }
}
