import ClassifyTestSupport
import Foundation
import Hummingbird
import PostgresNIO
import Testing
import TagIndex
import TagIndexPostgres

@testable import ClassifyGallery

/// The gallery fixture's index copied into a fresh database of the `Scripts/dev-postgres`
/// cluster, for running the same requests against both backends.
///
/// Suites that need it carry `.enabled(if: GalleryPostgres.isAvailable, GalleryPostgres.skipReason)`.
///
/// Usage: `let database = try await GalleryPostgres.copy(of: fixture)`
enum GalleryPostgres {
    static let cluster: Result<PostgresDescriptor, DevPostgres.StartFailure> = DevPostgres.start().flatMap { url in
        (try? PostgresDescriptor(parsing: url, environment: [:])).map(Result.success)
            ?? .failure(DevPostgres.StartFailure(message: "Scripts/dev-postgres printed \(url), not a PostgreSQL URL"))
    }

    static var isAvailable: Bool { (try? cluster.get()) != nil }

    static let skipReason: Comment = {
        if case .failure(let failure) = cluster {
            return "PostgreSQL is not available (\(failure.message)); install it with Scripts/bootstrap --postgres"
        }
        return "PostgreSQL is available"
    }()

    /// A session on the cluster's own database, for statements about other databases.
    static func administration() async throws -> PostgresSession {
        try await PostgresSession.connect(try cluster.get())
    }

    /// The server processes serving connections to `database` (found from another database's session).
    static func serverProcesses(of database: PostgresDescriptor, _ administration: PostgresSession) async throws -> [Int32] {
        var binds = PostgresBindings()
        binds.append(database.database)
        return try await administration.all(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", binds) { try $0.decode(Int32.self) }
    }

    /// A new database holding a copy of the fixture's SQLite index (same ids, same paths).
    static func copy(of fixture: GalleryFixture) async throws -> PostgresDescriptor {
        try await copy(of: fixture.database)
    }

    /// A new database holding a copy of the SQLite index at `database` (same ids, same paths).
    static func copy(of database: URL) async throws -> PostgresDescriptor {
        var descriptor = try cluster.get()
        let administration = try await administration()
        let name = "gallery_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        // A database name cannot be a bound parameter; this one is made of [a-z0-9_] above.
        try await administration.execute("CREATE DATABASE \(name)")
        await administration.close()
        descriptor.database = String(name)
        let target = try await PostgresSession.connect(descriptor)
        _ = try await IndexCopy.copy(from: SQLiteIndex(readingFrom: database), to: target)
        await target.close()
        return descriptor
    }

    /// The in-process application of a gallery over `location`.
    static func application(
        _ location: IndexLocation, fixture: GalleryFixture, roots: [LibraryRoot] = [], cache: String = "cache"
    ) async throws -> (some ApplicationProtocol, GalleryServer) {
        var configuration = GalleryConfiguration(location: location)
        configuration.opener = .standard
        configuration.roots = roots
        configuration.cacheDirectory = fixture.root.appending(path: cache)
        configuration.port = 0
        let server = try await GalleryServer(configuration: configuration)
        return (Application(router: server.router(hosts: HostCheck())), server)
    }
}
