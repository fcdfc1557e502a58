import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex

/// `classify-tool duplicates` on PostgreSQL: the prints stream from the server in blocks and
/// give the same groups and pairs as on SQLite.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresDuplicatesTests {
    @Test func groupsAndPairsAreTheSameOnBothBackends() async throws {
        // More prints than one block of the scan.
        let library = try SimilarityTests.Library(distinct: PrintBlocks.blockSize + 40)
        let postgres = try await PostgresCopyFixture.open(copying: library.index)
        defer { Task { await postgres.close() } }

        for (threshold, text) in [(0.8, ""), (0.95, ""), (0.8, "beach"), (0.8, "under:/sim/other"), (0.5, "dog OR beach")] {
            let query = try Query(parsing: text)
            let expected = try library.index.duplicateGroups(threshold: threshold, query: query)
            #expect(try await postgres.duplicateGroups(threshold: threshold, query: query) == expected, "\(threshold) \(text)")
            let pairs = try library.index.similarPairs(minimumScore: threshold, query: query)
            #expect(try await postgres.similarPairs(minimumScore: threshold, query: query) == pairs, "\(threshold) \(text)")
        }
        let groups = try await postgres.duplicateGroups(threshold: 0.8, query: Query())
        #expect(groups.count == 3)
        #expect(groups.allSatisfy { $0.members.count == 3 && $0.keeper.path.hasSuffix("/original.jpg") })
        #expect(try await postgres.duplicateGroups(threshold: 0.8, query: Query(parsing: "beach")).count == 2)
    }
}
