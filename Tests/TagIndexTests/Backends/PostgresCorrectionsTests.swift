import ClassifySupport
import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// `classify-tool tag` on PostgreSQL: corrections change search, labels and counts as on SQLite,
/// running one again changes nothing, and a failing one leaves nothing behind.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCorrectionsTests {
    static let searches = ["dog", "animal", "grandma", "gran*", "poodle", "cat", "indoor -dog", "outdoor"]

    @Test func correctionsHaveTheSameEffectOnBothBackends() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        let steps: [(String, String, [String])] = [
            ("add", "grandma", ["/lib/a/golden1.jpg", "/lib/b/tabby1.jpg"]),
            ("remove", "dog", ["/lib/b/poodle1.jpg", "/lib/not/indexed.jpg", "/lib/c/broken.jpg"]),
            ("add", "cat", ["/lib/b/poodle1.jpg"]),
            ("add", "grandma", ["/lib/a/golden1.jpg"]),
            ("clear", "dog", ["/lib/b/poodle1.jpg"]),
            ("remove", "animal", ["/lib/a/lab1.png"]),
        ]
        for (action, label, paths) in steps {
            let expected: CorrectionReport, actual: CorrectionReport
            switch action {
            case "add":
                expected = try fixture.index.addLabel(label, to: paths)
                actual = try await postgres.addLabel(label, to: paths)
            case "remove":
                expected = try fixture.index.removeLabel(label, from: paths)
                actual = try await postgres.removeLabel(label, from: paths)
            default:
                expected = try fixture.index.clearCorrection(of: label, on: paths)
                actual = try await postgres.clearCorrection(of: label, on: paths)
            }
            #expect(actual == expected, "\(action) \(label)")
            try await Self.expectSameAnswers(fixture.index, postgres, after: "\(action) \(label)")
        }
        #expect(try await postgres.search("grandma").hits.map(\.path).sorted() == ["/lib/a/golden1.jpg", "/lib/b/tabby1.jpg"])
        #expect(try await postgres.search("dog").hits.contains { $0.path == "/lib/b/poodle1.jpg" }, "the removal was cleared")
        #expect(try await !postgres.search("cat").hits.isEmpty)

        // A correction that fails (removing a name no label has) leaves the index as it was.
        let before = try await postgres.corrections()
        await #expect(throws: TagIndexError.self) { try await postgres.removeLabel("zebra", from: ["/lib/a/golden1.jpg"]) }
        #expect(try await postgres.corrections() == before)
    }

    @Test func theSameCorrectionTwiceChangesNothingMore() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        _ = try await postgres.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        let once = try await Self.state(postgres)
        _ = try await postgres.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        #expect(try await Self.state(postgres) == once)
        #expect(once.counts["dog"] == 3, "\(once.counts)")
    }

    /// Labels, counts, searches and corrections (dates aside) of a PostgreSQL index.
    struct State: Equatable {
        var counts: [String: Int]
        var labels: [String: [String]]
        var corrections: [String]
    }

    static func state(_ postgres: PostgresIndex) async throws -> State {
        var labels: [String: [String]] = [:]
        for (path, _, _, _, _, _) in FixtureIndex.images {
            labels[path] = try await postgres.labels(forPath: path).map { "\($0.identifier)=\($0.subtreeConfidence)" }
        }
        let corrections = try await postgres.corrections().map { "\($0.contentHash) \($0.identifier) \($0.kind) \($0.paths)" }
        return State(counts: try await postgres.labelImageCounts(), labels: labels, corrections: corrections)
    }

    /// A taxonomy whose parents change, installed on both backends after corrections: each
    /// applies the corrections again as the taxonomy is now (tabby moves out from under cat: it is
    /// the model's again, and cat stays removed).
    @Test func aNewTaxonomyReappliesCorrectionsOnBothBackends() async throws {
        let fixture = try FixtureIndex()
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }
        _ = try fixture.index.removeLabel("cat", from: ["/lib/b/tabby1.jpg"])
        _ = try await postgres.removeLabel("cat", from: ["/lib/b/tabby1.jpg"])
        _ = try fixture.index.addLabel("grandma", to: ["/lib/a/golden1.jpg"])
        _ = try await postgres.addLabel("grandma", to: ["/lib/a/golden1.jpg"])
        try await Self.expectSameAnswers(fixture.index, postgres, after: "the corrections")
        var labels = FixtureIndex.labels
        let position = try #require(labels.firstIndex { $0.identifier == "tabby" })
        labels[position].parents = ["animal"]
        try fixture.index.replaceTaxonomy(labels, model: FixtureIndex.model)
        try await PostgresTaxonomyWriter.install(labels, model: FixtureIndex.model, vocabulary: [], postgres.session)
        let tabby = try await postgres.labels(forPath: "/lib/b/tabby1.jpg").map(\.identifier).sorted()
        #expect(tabby == ["animal", "indoor", "tabby"])
        #expect(try await postgres.search("cat").hits.isEmpty)
        try await Self.expectSameAnswers(fixture.index, postgres, after: "the new taxonomy")
        try await PostgresPostings.compact(postgres.session)
        #expect(try await PostgresPostings.matchObservations(postgres.session))
        try await Self.expectSameAnswers(fixture.index, postgres, after: "compaction")
    }

    static func expectSameAnswers(_ sqlite: SQLiteIndex, _ postgres: PostgresIndex, after step: String) async throws {
        #expect(try await postgres.labelImageCounts() == (try sqlite.labelImageCounts()), "\(step)")
        for text in searches {
            let expected = try? sqlite.search(text)
            let actual = try? await postgres.search(text)
            #expect(actual?.hits.map(\.path) == expected?.hits.map(\.path), "\(step): \(text)")
            #expect(actual?.hits.map(\.score) == expected?.hits.map(\.score), "\(step): \(text)")
        }
        for (path, _, _, _, _, _) in FixtureIndex.images {
            #expect(try await postgres.labels(forPath: path) == (try sqlite.labels(forPath: path)), "\(step): \(path)")
        }
        let strip = { (corrections: [LabelCorrection]) in
            Set(corrections.map { "\($0.contentHash) \($0.identifier) \($0.displayName) \($0.kind) \($0.isUserLabel) \($0.paths)" })
        }
        #expect(strip(try await postgres.corrections()) == strip(try sqlite.corrections()), "\(step)")
    }
}

/// A correction and an index run writing a file of the same content at the same time: the
/// correction waits for the writer's transaction and applies itself to the new row too.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresCorrectionsConcurrencyTests {
    @Test func aCorrectionWaitsForAWriterAndCoversItsRows() async throws {
        let fixture = try FixtureIndex()
        let descriptor = try await PostgresTestServer.freshDatabase()
        let setup = try await PostgresSession.connect(descriptor)
        _ = try await IndexCopy.copy(from: fixture.index, to: setup)
        await setup.close()
        let postgres = try await PostgresIndex.open(descriptor)
        defer { Task { await postgres.close() } }
        let writing = try await PostgresSession.connect(descriptor)
        defer { Task { await writing.close() } }

        // A writer stores a copy of golden1.jpg (same content) and has not committed yet.
        let hash = ContentHash.hex(of: Array("/lib/a/golden1.jpg".utf8))
        try await writing.execute("BEGIN")
        var writer = PostgresBatchWriter(writing, taxonomy: try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(writing)))
        _ = try await writer.store([.classified(ImageClassification(
            path: "/lib/copy/golden1.jpg", size: 3_000_000, modificationTime: FixtureIndex.epoch, contentHash: hash,
            width: 4000, height: 3000, model: FixtureIndex.model,
            observations: [LabelConfidence(identifier: "golden_retriever", confidence: 0.9), LabelConfidence(identifier: "dog", confidence: 0.95)]))])
        try await writer.flushCounts()

        let finished = Locked(false)
        let correction = Task {
            defer { finished.withLock { $0 = true } }
            return try await postgres.removeLabel("dog", from: ["/lib/a/golden1.jpg"])
        }
        // Until the correction waits for the writer's lock (or, were there no lock, ends first).
        let probe = try await PostgresSession.connect(descriptor)
        defer { Task { await probe.close() } }
        var waited = false
        for _ in 0..<12_000 where !finished.withLock({ $0 }) {  // at most a minute on a busy machine
            let waiting = try await probe.all(
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            ) { try $0.decode(Int64.self) }.first ?? 0
            if waiting > 0 { waited = true; break }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(waited, "the correction waits for the writer")
        try await writing.execute("COMMIT")
        let report = try await correction.value
        #expect(report.outcomes.allSatisfy { $0.failure == nil })

        // Both files of that content lost dog (and its breeds).
        for path in ["/lib/a/golden1.jpg", "/lib/copy/golden1.jpg"] {
            let labels = try await postgres.labels(forPath: path).map(\.identifier)
            #expect(!labels.contains("dog") && !labels.contains("golden_retriever"), "\(path): \(labels)")
        }
        #expect(try await postgres.search("dog").hits.allSatisfy { !$0.path.hasSuffix("golden1.jpg") })
        #expect(try await postgres.labelImageCounts()["dog"] == 3)
    }
}
