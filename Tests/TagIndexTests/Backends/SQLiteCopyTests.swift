import Foundation
import GRDB
import TagIndexTestSupport
import Testing
@testable import TagIndex

/// The copy loop of TagIndex (``IndexCopy``) between two SQLite files: every row of every table,
/// the derived structures rebuilt, all or nothing. It needs no server, so it always runs; the
/// PostgreSQL directions are `IndexCopyRoundTripTests`.
struct SQLiteCopyTests {
    @Test(arguments: [1, 4, 500])
    func aFileCopiesIntoANewFileWithEveryRowAndTheSameAnswers(pageSize: Int) async throws {
        let fixture = try FixtureIndex()
        _ = try fixture.index.addLabel("poodle", to: ["/lib/b/flat1.jpg"])
        let target = fixture.directory.url.appending(path: "copies/copy.sqlite")
        let summary = try await IndexCopy.copy(from: fixture.index, to: SQLiteCopyTarget(target), pageSize: pageSize)
        let copy = try SQLiteIndex(readingFrom: target)
        for table in IndexCopy.tables {
            let rows = try PostgresBackendTests.count(table.name, fixture.index)
            #expect(summary.count(of: table.name) == rows, "\(table.name)")
            #expect(try PostgresBackendTests.count(table.name, copy) == rows, "\(table.name)")
        }
        #expect(summary.count(of: "corrections") == 1)
        #expect(try PostgresBackendTests.imageLines(copy) == PostgresBackendTests.imageLines(fixture.index))
        try Self.expectSameAnswers(copy, fixture.index)
        // Never over an existing file (nor the source), never leaving a partial file behind.
        await #expect(throws: TagIndexError.invalidInput("\(target.path) already exists; copy into a new file")) {
            try await IndexCopy.copy(from: fixture.index, to: SQLiteCopyTarget(target))
        }
        await #expect(throws: TagIndexError.self) {
            try await IndexCopy.copy(from: fixture.index, to: SQLiteCopyTarget(fixture.directory.databaseURL))
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path).filter { $0.contains("partial") }
        #expect(left.isEmpty)
    }

    @Test func aCopyThatFailsHalfwayLeavesNoFile() async throws {
        let fixture = try FixtureIndex()
        let target = fixture.directory.url.appending(path: "broken.sqlite")
        await #expect(throws: CopyFailure.self) {
            try await IndexCopy.copy(from: FailingSource(index: fixture.index, failingAt: "observations"), to: SQLiteCopyTarget(target))
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path).filter { $0.contains("partial") }
        #expect(left.isEmpty)
    }

    /// The copy's statistics and every search page (with and without facets) equal the original's.
    static func expectSameAnswers(_ copy: SQLiteIndex, _ original: SQLiteIndex) throws {
        #expect(try copy.statistics() == original.statistics())
        for text in PostgresSearchPageTests.queries + ["poodle", "retriever", "kitty", "golden"] {
            for facets in [0, 5] {
                var query = try Query(parsing: text)
                query.facetCount = facets
                #expect(try copy.search(query) == original.search(query), "\(text)")
            }
        }
    }

    struct CopyFailure: Error {}

    /// A source that breaks (like a server going away) when the copy reaches `failingAt`.
    struct FailingSource: IndexCopySource {
        let index: SQLiteIndex
        let failingAt: String
        func rows(of table: IndexCopy.Table, after key: [DatabaseValue]?, limit: Int) async throws -> [[DatabaseValue]] {
            if table.name == failingAt { throw CopyFailure() }
            return try index.rows(of: table, after: key, limit: limit)
        }
    }
}
