import Foundation
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

/// The backends a behaviour test runs on: `@Test(arguments: Backend.allCases)`.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite, postgresql
    var testDescription: String { rawValue }
}

/// A SQLite index a test wrote, read through one backend: the SQLite index itself, or a copy of it
/// in a fresh PostgreSQL database read through `PostgresIndex`. The behaviour tests write their
/// fixture once, in SQLite, and ask the same questions of either backend from one test body.
///
/// The reads are those both backends have (search, color search, similar, a file's details,
/// statistics), async, with the same result types. On SQLite every search is also answered by the
/// SQL engine, which must give the same page as the engine SQLite picks (the dense one, mostly),
/// unless the query is nested past what SQLite's SQL parser takes.
/// Where PostgreSQL is not available the `postgresql` case is cancelled with the reason (said once
/// on stderr too); the `sqlite` case runs everywhere.
///
/// A copy is a snapshot: a test that writes to the SQLite index again makes a new one.
///
/// Usage:
/// ```swift
/// @Test(arguments: Backend.allCases) func dogs(backend: Backend) async throws {
///     let index = try await BackendIndex.make(backend, copying: try FixtureIndex())
///     #expect(try await index.paths("dog").count == 4)
/// }
/// ```
struct BackendIndex {
    let backend: Backend
    /// The index the test wrote (on `.sqlite`, also the one read).
    let sqlite: SQLiteIndex
    /// The copy read on `.postgresql`.
    let postgres: PostgresIndex?
    /// Keeps the SQLite file's folder until the test ends.
    private let directory: TemporaryDirectory?

    /// `index` (whose file lives in `directory`) read through `backend`.
    static func make(_ backend: Backend, copying index: SQLiteIndex, in directory: TemporaryDirectory?) async throws -> BackendIndex {
        guard backend == .postgresql else {
            return BackendIndex(backend: backend, sqlite: index, postgres: nil, directory: directory)
        }
        guard PostgresTestServer.isAvailable else {
            _ = announceSkip
            try Test.cancel(PostgresTestServer.skipReason)
        }
        let descriptor = try await PostgresTestServer.freshDatabase()
        let session = try await PostgresSession.connect(descriptor)
        do {
            _ = try await IndexCopy.copy(from: index, to: session)
        } catch {
            await session.close()
            throw error
        }
        await session.close()
        return BackendIndex(backend: backend, sqlite: index, postgres: try await PostgresIndex.open(descriptor), directory: directory)
    }

    /// The fixture's index read through `backend`.
    static func make(_ backend: Backend, copying fixture: FixtureIndex) async throws -> BackendIndex {
        try await make(backend, copying: fixture.index, in: fixture.directory)
    }

    /// Says once, on stderr, why the PostgreSQL cases are cancelled (the console reporter shows
    /// cancelled cases without their comment).
    static let announceSkip: Void = {
        FileHandle.standardError.write(Data("note: the postgresql cases of backend-parameterized tests are cancelled: \(PostgresTestServer.skipReason)\n".utf8))
    }()

    /// Reads as `fixture.index.search(...)` did when the fixture was SQLite's alone.
    var index: BackendIndex { self }

    /// The index read, through the protocol both backends implement.
    var reader: any IndexBackend { postgres ?? sqlite }

    // MARK: Searches

    func search(_ text: String) async throws -> SearchPage {
        try await search(Query(parsing: text))
    }

    func search(_ query: Query) async throws -> SearchPage {
        if let postgres {
            let page = try await postgres.search(query)
            if query.engine == .automatic {
                // The postings engine (compacted blocks and, where blocks changed, observations)
                // and SQL agree wherever the postings can answer.
                for engine in [Query.Engine.sql, .postings] {
                    var other = query
                    other.engine = engine
                    #expect(try await postgres.search(other) == page, "PostgreSQL's \(engine) engine differs on \(query)")
                }
            }
            return page
        }
        let page = try sqlite.search(query)
        if query.engine == .automatic {
            var sql = query
            sql.engine = .sql
            do {
                #expect(try sqlite.search(sql) == page, "SQLite's engines differ on \(query)")
            } catch TagIndexError.invalidInput(let message) where message.hasPrefix("this query is too complex") {
                // Nesting past SQLite's parser stack: only the dense engine answers it.
            }
        }
        return page
    }

    func search(color: IndexedColor, query: Query = Query()) async throws -> SearchPage {
        if let postgres { return try await postgres.search(color: color, query: query) }
        return try sqlite.search(color: color, query: query)
    }

    func similar(toPath path: String, query: Query = Query(), minimumScore: Double = 0) async throws -> SearchPage {
        if let postgres { return try await postgres.similar(toPath: path, query: query, minimumScore: minimumScore) }
        return try sqlite.similar(toPath: path, query: query, minimumScore: minimumScore)
    }

    func similar(to print: [Float], query: Query = Query(), minimumScore: Double = 0, excludingPath: String? = nil) async throws -> SearchPage {
        if let postgres { return try await postgres.similar(to: print, query: query, minimumScore: minimumScore, excludingPath: excludingPath) }
        return try sqlite.similar(to: print, query: query, minimumScore: minimumScore, excludingPath: excludingPath)
    }

    /// The file names (last path components) of a search's hits, in result order.
    func paths(_ text: String) async throws -> [String] {
        try await paths(Query(parsing: text))
    }

    func paths(_ query: Query) async throws -> [String] {
        try await search(query).hits.map { URL(fileURLWithPath: $0.path).lastPathComponent }
    }

    // MARK: Details

    func image(atPath path: String) async throws -> IndexedImage? {
        if let postgres { return try await postgres.image(atPath: path) }
        return try sqlite.image(atPath: path)
    }

    func labels(forPath path: String) async throws -> [ImageLabel] {
        if let postgres { return try await postgres.labels(forPath: path) }
        return try sqlite.labels(forPath: path)
    }

    func faces(forPath path: String) async throws -> [IndexedFace]? {
        if let postgres { return try await postgres.faces(forPath: path) }
        return try sqlite.faces(forPath: path)
    }

    func corrections(forPath path: String) async throws -> [LabelCorrection] {
        if let postgres { return try await postgres.corrections(forPath: path) }
        return try sqlite.corrections(forPath: path)
    }

    func statistics() async throws -> IndexStatistics {
        if let postgres { return try await postgres.statistics() }
        return try sqlite.statistics()
    }

    func modelUsage() async throws -> [ModelUsage] {
        if let postgres { return try await postgres.modelUsage() }
        return try sqlite.modelUsage()
    }

    func hasCalibration() async throws -> Bool {
        if let postgres { return try await postgres.hasCalibration() }
        return try sqlite.hasCalibration()
    }
}

/// The standard labelled fixture (``FixtureIndex``) on a backend.
///
/// Usage: `let fixture = try await BackendFixture.make(backend); #expect(try await fixture.paths("dog") == [...])`
enum BackendFixture {
    static func make(_ backend: Backend) async throws -> BackendIndex {
        try await BackendIndex.make(backend, copying: try FixtureIndex())
    }
}
