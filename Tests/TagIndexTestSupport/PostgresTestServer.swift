import ClassifyTestSupport
import Foundation
import PostgresNIO
import Testing
import TagIndex
import TagIndexPostgres

/// The throwaway PostgreSQL cluster of `Scripts/dev-postgres` (started once per test process,
/// reused when already running; CI stops it after the tests), and a fresh database per test.
///
/// Tests that need it carry `.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason)`:
/// where PostgreSQL is not installed they are skipped, saying so.
///
/// Usage: `let database = try await PostgresTestServer.freshDatabase()`
package enum PostgresTestServer {
    /// The cluster's URL, or why there is none.
    package static let cluster: Result<PostgresDescriptor, StartFailure> = start()

    /// Why the cluster could not be started.
    package struct StartFailure: Error { package var message: String }

    package static var isAvailable: Bool { (try? cluster.get()) != nil }

    package static let skipReason: Comment = {
        if case .failure(let failure) = cluster {
            return "PostgreSQL is not available (\(failure.message)); install it with Scripts/bootstrap --postgres"
        }
        return "PostgreSQL is available"
    }()

    private static func start() -> Result<PostgresDescriptor, StartFailure> {
        switch DevPostgres.start() {
        case .failure(let failure):
            return .failure(StartFailure(message: failure.message))
        case .success(let url):
            guard let descriptor = try? PostgresDescriptor(parsing: url, environment: [:]) else {
                return .failure(StartFailure(message: "Scripts/dev-postgres printed \(url), not a PostgreSQL URL"))
            }
            return .success(descriptor)
        }
    }

    /// A new, empty database on the cluster (named after a random id; left for `dev-postgres stop`).
    package static func freshDatabase() async throws -> PostgresDescriptor {
        var descriptor = try cluster.get()
        let session = try await PostgresSession.connect(descriptor)
        let name = "tagindex_test_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        // A database name cannot be a bound parameter; this one is made of [a-z0-9_] above.
        try await session.execute("CREATE DATABASE \(name)")
        await session.close()
        descriptor.database = String(name)
        return descriptor
    }
}
