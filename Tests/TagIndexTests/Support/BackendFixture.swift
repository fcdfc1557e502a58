import Foundation
import Testing
@testable import TagIndex

/// The backends a behaviour test runs on.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql
    var testDescription: String { rawValue }
}

/// `FixtureIndex` on a backend: the SQLite file itself, or a PostgreSQL copy of it searched
/// through `PostgresIndex`. Where PostgreSQL is not available its test cases are cancelled with
/// a message saying so.
///
/// Usage: `let fixture = try await BackendFixture.make(backend); #expect(try await fixture.paths("dog") == [...])`
struct BackendFixture {
    let sqlite: FixtureIndex
    let postgres: PostgresIndex?

    static func make(_ backend: Backend) async throws -> BackendFixture {
        let sqlite = try FixtureIndex()
        guard backend == .postgresql else { return BackendFixture(sqlite: sqlite, postgres: nil) }
        guard PostgresTestServer.isAvailable else {
            _ = announceSkip
            try Test.cancel(PostgresTestServer.skipReason)
        }
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        _ = try await IndexCopy.copy(from: sqlite.index, to: session)
        await session.close()
        return BackendFixture(sqlite: sqlite, postgres: try await PostgresIndex.open(descriptor))
    }

    /// Says once, on stderr, why the PostgreSQL cases are cancelled (the console reporter shows
    /// cancelled cases without their comment).
    static let announceSkip: Void = {
        FileHandle.standardError.write(Data("note: the postgresql cases of backend-parameterized tests are cancelled: \(PostgresTestServer.skipReason)\n".utf8))
    }()

    /// The searches, on this fixture's backend (`fixture.index.search(...)` reads as before).
    var index: BackendFixture { self }

    func search(_ text: String) async throws -> SearchPage {
        try await search(Query(parsing: text))
    }

    func search(_ query: Query) async throws -> SearchPage {
        if let postgres { return try await postgres.search(query) }
        return try sqlite.index.search(query)
    }

    func statistics() async throws -> IndexStatistics {
        if let postgres { return try await postgres.statistics() }
        return try sqlite.index.statistics()
    }

    func paths(_ text: String) async throws -> [String] {
        try await search(text).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }

    func paths(_ query: Query) async throws -> [String] {
        try await search(query).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }
}
