import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// `classify-tool export` on PostgreSQL: the same records as on SQLite, corrections and faces
/// included, with and without a query, across more than one block of rows.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresExportTests {
    @Test func recordsAreTheSameOnBothBackends() async throws {
        let fixture = try FixtureIndex()
        // More rows than one block, and one with faces.
        var entries: [IndexEntry] = []
        for number in 0..<(PostgresIndex.exportBlockSize + 20) {
            let label = number % 2 == 0 ? "beach" : "tabby"
            let confidence = 0.5 + Double(number % 40) / 100
            let path = "/lib/many/" + String(format: "%04d", number) + ".jpg"
            entries.append(.classified(ImageClassification(
                path: path, size: Int64(number), modificationTime: FixtureIndex.epoch, contentHash: "many\(number)",
                width: 10, height: 10, model: FixtureIndex.model, observations: [LabelConfidence(identifier: label, confidence: confidence)])))
        }
        entries.append(.classified(ImageClassification(
            path: "/lib/faces/group.jpg", size: 5, modificationTime: FixtureIndex.epoch, contentHash: "group", width: 100, height: 80,
            model: FixtureIndex.model, observations: [LabelConfidence(identifier: "indoor", confidence: 0.9)],
            faces: [IndexedFace(x: 1, y: 2, width: 30, height: 40, confidence: 0.9), IndexedFace(x: 50, y: 2, width: 20, height: 25, confidence: 0.7)])))
        try fixture.index.write(batch: entries)
        _ = try fixture.index.addLabel("grandma", to: ["/lib/a/golden1.jpg"])
        _ = try fixture.index.removeLabel("dog", from: ["/lib/b/poodle1.jpg"])
        let postgres = try await PostgresCopyFixture.open(copying: fixture.index)
        defer { Task { await postgres.close() } }

        let cases: [(String?, CalibratedFilter?)] = [
            (nil, nil), (nil, .highPrecision), ("dog", nil), ("animal -cat", nil), ("beach OR tabby", .highRecall), ("grandma", nil),
        ]
        for (text, filter) in cases {
            let query = try text.map { try Query(parsing: $0) }
            var expected: [ExportRecord] = []
            try fixture.index.exportRecords(matching: query, filter: filter) { expected.append($0) }
            var actual: [ExportRecord] = []
            try await postgres.exportRecords(matching: query, filter: filter) { actual.append($0) }
            #expect(!expected.isEmpty, "\(text ?? "all")")
            #expect(actual == expected, "\(text ?? "all") \(String(describing: filter))")
        }
        var all: [ExportRecord] = []
        try await postgres.exportRecords(filter: nil) { all.append($0) }
        #expect(all.count == FixtureIndex.images.count + 1 + PostgresIndex.exportBlockSize + 20 + 1)
        #expect(all.map(\.path) == all.map(\.path).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(all.first { $0.path == "/lib/faces/group.jpg" }?.faces?.count == 2)
        let golden = try #require(all.first { $0.path == "/lib/a/golden1.jpg" })
        #expect(golden.labels.contains { $0.identifier == "grandma" && $0.isUserLabel && $0.isAdded })
        #expect(all.first { $0.path == "/lib/b/poodle1.jpg" }?.removedLabels == ["dog"])
        #expect(all.first { $0.path == "/lib/c/broken.jpg" }?.failureStage == "decode")
    }
}
