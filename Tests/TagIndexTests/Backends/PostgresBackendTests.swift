import Foundation
import GRDB
import PostgresNIO
import TagIndexTestSupport
import Testing
@testable import TagIndex
@testable import TagIndexPostgres

#if canImport(Glibc)
import Glibc
#endif

/// Connections, schema migrations and copies on a real PostgreSQL server (Scripts/dev-postgres).
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct PostgresBackendTests {
    @Test func aRefusedConnectionNamesHostAndPort() async throws {
        // A port nobody listens on: bind one, note it, close it.
        let port = try Self.unusedPort()
        let descriptor = PostgresDescriptor(user: "classify", password: "hunter2", host: "127.0.0.1", port: port, database: "x", sslMode: .disable)
        do {
            _ = try await PostgresSession.connect(descriptor)
            Issue.record("connected to a closed port")
        } catch let error as PostgresBackendError {
            guard case .unreachable(let endpoint, _) = error else { Issue.record("\(error)"); return }
            #expect(endpoint == "127.0.0.1:\(port)")
            #expect("\(error)".hasPrefix("cannot reach the PostgreSQL server at 127.0.0.1:\(port): "), "\(error)")
            #expect(!"\(error)".contains("hunter2"))
        }
    }

    @Test func aServerThatNeverAnswersGivesUpAtTheDeadline() async throws {
        // A listening socket that nobody accepts on: the kernel completes the TCP handshake,
        // then nothing is ever said.
        let (socket, port) = try Self.silentListener()
        defer { close(socket) }
        let descriptor = PostgresDescriptor(user: "classify", host: "127.0.0.1", port: port, database: "x", sslMode: .disable)
        do {
            _ = try await PostgresSession.connect(descriptor, timeout: .seconds(1))
            Issue.record("connected to a silent socket")
        } catch let error as PostgresBackendError {
            // PostgresNIO's own timeout or the session's deadline, whichever fires first.
            guard case .unreachable(let endpoint, let reason) = error else { Issue.record("\(error)"); return }
            #expect(endpoint == "127.0.0.1:\(port)")
            #expect(reason.contains("timeout") || reason.contains("no answer"), "\(reason)")
        }
    }

    @Test func aMissingDatabaseIsTheServersMessage() async throws {
        var descriptor = try PostgresTestServer.cluster.get()
        descriptor.database = "no_such_database_here"
        do {
            _ = try await PostgresSession.connect(descriptor)
            Issue.record("connected to a missing database")
        } catch let error as PostgresBackendError {
            guard case .rejected(let endpoint, let reason) = error else { Issue.record("\(error)"); return }
            #expect(endpoint == descriptor.endpoint)
            #expect(reason.contains("no_such_database_here") && reason.contains("does not exist"), "\(reason)")
        }
    }

    @Test func migrationsRunOnceAndANewerSchemaIsRefused() async throws {
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        // One identifier, the same tables on both backends: a new SQLite migration needs its PostgreSQL
        // twin. PostgreSQL's own migrations (the work queue of concurrent runs) are named pgN.
        #expect(PostgresSchema.migrationIdentifiers.filter { !$0.hasPrefix("pg") } == Schema.migrationIdentifiers)
        #expect(try await PostgresSchema.migrate(session) == PostgresSchema.migrationIdentifiers)
        #expect(try await PostgresSchema.migrate(session) == [])
        #expect(try await PostgresSchema.appliedMigrations(session) == Set(PostgresSchema.migrationIdentifiers))
        let tables = try await session.all(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1") { try $0.decode(String.self) }
        #expect(tables == ["changed_blocks", "corrections", "curves", "face_people", "image_faces", "image_labels", "image_metadata", "image_prints",
                           "images", "index_queue", "label_parents", "label_posting_groups", "labels", "meta", "model_labels", "models", "observations",
                           "people", "people_corrections", "people_state", "print_sketches", "tagindex_migrations"])

        try await session.execute("INSERT INTO tagindex_migrations(identifier) VALUES ('v99')")
        await #expect(throws: PostgresBackendError.newerSchema(database: session.descriptor.description, unknownMigrations: ["v99"])) {
            try await PostgresSchema.migrate(session)
        }
    }

    @Test func concurrentFirstOpensMigrateOnce() async throws {
        let descriptor = try await PostgresTestServer.freshDatabase()
        let applied = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let session = try await PostgresSession.connect(descriptor)
                    defer { Task { await session.close() } }
                    return try await PostgresSchema.migrate(session)
                }
            }
            var all: [[String]] = []
            for try await result in group { all.append(result) }
            return all
        }
        #expect(applied.filter { !$0.isEmpty } == [PostgresSchema.migrationIdentifiers], "one process applied everything: \(applied)")
    }

    @Test func aCopyHoldsEveryRowAndIsNeverMergedInto() async throws {
        let fixture = try FixtureIndex()
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        let summary = try await IndexCopy.copy(from: fixture.index, to: session)
        for table in IndexCopy.tables {
            let expected = try Self.count(table.name, fixture.index)
            let copied = try await session.all("SELECT COUNT(*) FROM \(table.name)") { try $0.decode(Int.self) }
            #expect(summary.count(of: table.name) == expected, "\(table.name)")
            #expect(copied == [expected], "\(table.name)")
        }
        #expect(summary.count(of: "images") == FixtureIndex.images.count + 1)
        // Rows read back equal, byte for byte (blobs, NULLs, 64-bit times).
        let postgresImages = try await session.all(
            "SELECT id, path, size, mtime, content_hash, width, height, error_stage, top_confidence, feature_print FROM images ORDER BY id"
        ) { row in
            let (id, path, size, mtime, hash, width, height, stage, top, print) = try row.decode(
                (Int64, String, Int64, Int64, String?, Int?, Int?, String?, Int?, ByteBuffer?).self)
            return (id, path, size, mtime, hash, width, height, stage, top, print.map { Array($0.readableBytesView) })
        }
        let sqliteRows = try Self.imageLines(fixture.index)
        #expect(postgresImages.map { Self.line($0.0, $0.1, $0.2, $0.3, $0.4, $0.5, $0.6, $0.7, $0.8, $0.9) } == sqliteRows)
        // New rows get ids after the copied ones.
        let next = try await session.all("INSERT INTO models(name, version) VALUES ('other', '2') RETURNING id") { try $0.decode(Int64.self) }
        #expect(next == [2])

        await #expect(throws: TagIndexError.self) { try await IndexCopy.copy(from: fixture.index, to: session) }
    }

    static func count(_ table: String, _ index: SQLiteIndex) throws -> Int {
        try index.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    static func imageLines(_ index: SQLiteIndex) throws -> [String] {
        try index.database.read { db in
            try Row.fetchAll(
                db, sql: "SELECT id, path, size, mtime, content_hash, width, height, error_stage, top_confidence, feature_print FROM images ORDER BY id"
            ).map { row -> String in
                Self.line(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], (row[9] as Data?).map { Array($0) })
            }
        }
    }

    // MARK: Helpers

    static func line(
        _ id: Int64, _ path: String, _ size: Int64, _ mtime: Int64, _ hash: String?, _ width: Int?, _ height: Int?,
        _ stage: String?, _ top: Int?, _ print: [UInt8]?
    ) -> String {
        "\(id) \(path) \(size) \(mtime) \(hash ?? "-") \(width ?? -1)x\(height ?? -1) \(stage ?? "-") \(top ?? -1) \(print ?? [])"
    }

    static func unusedPort() throws -> Int {
        let (socket, port) = try silentListener()
        close(socket)
        return port
    }

    /// A socket listening on 127.0.0.1 (kernel-chosen port) that never accepts.
    static func silentListener() throws -> (Int32, Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0, listen(fd, 8) == 0 else { close(fd); throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}

/// SQLite -> PostgreSQL -> SQLite: the copy back answers every search as the original does.
@Suite(.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason))
struct IndexCopyRoundTripTests {
    @Test(arguments: [1, 3, 500])
    func aRoundTripAnswersLikeTheOriginal(pageSize: Int) async throws {
        let fixture = try FixtureIndex()
        _ = try fixture.index.addLabel("poodle", to: ["/lib/b/flat1.jpg"])
        let session = try await PostgresSession.connect(try await PostgresTestServer.freshDatabase())
        defer { Task { await session.close() } }
        let there = try await IndexCopy.copy(from: fixture.index, to: session, pageSize: pageSize)
        let back = fixture.directory.url.appending(path: "back.sqlite")
        let returned = try await IndexCopy.copy(from: session, toNewFile: back, pageSize: pageSize)
        #expect(returned == there)
        #expect(there.count(of: "corrections") == 1)
        try SQLiteCopyTests.expectSameAnswers(try SQLiteIndex(readingFrom: back), fixture.index)
        // Never over an existing file, never leaving a partial file behind.
        await #expect(throws: TagIndexError.self) { try await IndexCopy.copy(from: session, toNewFile: back) }
        let left = try FileManager.default.contentsOfDirectory(atPath: fixture.directory.url.path).filter { $0.contains("partial") }
        #expect(left.isEmpty)
    }
}
