import Foundation
import PostgresNIO
import Testing
@testable import TagIndex

/// The throwaway PostgreSQL cluster of `Scripts/dev-postgres` (started once per test process,
/// reused when already running; CI stops it after the tests), and a fresh database per test.
///
/// Tests that need it carry `.enabled(if: PostgresTestServer.isAvailable, PostgresTestServer.skipReason)`:
/// where PostgreSQL is not installed they are skipped, saying so.
///
/// Usage: `let database = try await PostgresTestServer.freshDatabase()`
enum PostgresTestServer {
    /// The cluster's URL, or why there is none.
    static let cluster: Result<PostgresDescriptor, StartFailure> = start()

    /// Why the cluster could not be started.
    struct StartFailure: Error { var message: String }

    static var isAvailable: Bool { (try? cluster.get()) != nil }

    static let skipReason: Comment = {
        if case .failure(let failure) = cluster {
            return "PostgreSQL is not available (\(failure.message)); install it with Scripts/bootstrap --postgres"
        }
        return "PostgreSQL is available"
    }()

    private static func start() -> Result<PostgresDescriptor, StartFailure> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appending(path: "Scripts/dev-postgres")
        process.arguments = ["start"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .failure(StartFailure(message: "Scripts/dev-postgres: \(error)")) }
        // Foundation keeps the parent's copies of the write ends open: close them, or reading
        // to the end never ends.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let url = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, let descriptor = try? PostgresDescriptor(parsing: url, environment: [:]) else {
            let message = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(StartFailure(message: message.isEmpty ? "Scripts/dev-postgres start failed" : message))
        }
        return .success(descriptor)
    }

    /// A new, empty database on the cluster (named after a random id; left for `dev-postgres stop`).
    static func freshDatabase() async throws -> PostgresDescriptor {
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
