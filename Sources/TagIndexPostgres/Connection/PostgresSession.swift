import TagIndex
import Foundation
import Logging
import PostgresNIO

/// One connection to a PostgreSQL server, with errors that name the server and never a password.
///
/// Statements take bound parameters only (`$1`, `$2`, ... with ``PostgresBindings``); no value is
/// spliced into SQL text. Connecting gives up after `timeout` (10 s by default) with
/// ``PostgresBackendError/unreachable(endpoint:reason:)``, whatever the network does.
///
/// Usage:
/// ```swift
/// let session = try await PostgresSession.connect(descriptor)
/// defer { Task { await session.close() } }
/// let rows = try await session.query("SELECT COUNT(*) FROM images")
/// ```
package final class PostgresSession: Sendable {
    /// The database this session is connected to.
    package let descriptor: PostgresDescriptor
    let connection: PostgresConnection

    /// PostgresNIO logs nothing users should see; errors are reported by the callers.
    static let logger = Logger(label: "classify.tagindex.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    private init(descriptor: PostgresDescriptor, connection: PostgresConnection) {
        self.descriptor = descriptor
        self.connection = connection
    }

    /// A session dropped without `close()` closes its connection on the way out (PostgresNIO
    /// requires every connection to be closed before it goes away).
    deinit {
        let connection = self.connection
        Task { try? await connection.close() }
    }

    /// Connects, or throws ``PostgresBackendError/unreachable(endpoint:reason:)`` within `timeout`
    /// (``PostgresBackendError/rejected(endpoint:reason:)`` when the server refuses the login).
    ///
    /// Usage: `let session = try await PostgresSession.connect(descriptor, timeout: .seconds(10))`
    package static func connect(_ descriptor: PostgresDescriptor, timeout: Duration = .seconds(10)) async throws -> PostgresSession {
        let endpoint = descriptor.endpoint
        let milliseconds = max(1, timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let configuration: PostgresConnection.Configuration
        do {
            configuration = try descriptor.connectionConfiguration(timeout: .milliseconds(milliseconds))
        } catch {
            throw PostgresBackendError.unreachable(endpoint: endpoint, reason: "TLS could not be set up: \(error)")
        }
        // The connect timeout covers TCP; the deadline also covers a server that accepts the
        // connection and then never answers (a stopped process, a proxy, another protocol).
        let connection = try await withThrowingTaskGroup(of: PostgresConnection?.self) { group in
            group.addTask {
                do {
                    return try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                } catch {
                    throw backendError(error, endpoint: endpoint, connecting: true)
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let connection = first else {
                throw PostgresBackendError.unreachable(endpoint: endpoint, reason: "no answer within \(timeout.components.seconds) s")
            }
            return connection
        }
        return PostgresSession(descriptor: descriptor, connection: connection)
    }

    /// Runs one statement and returns its rows (read them with `for try await row in rows`).
    ///
    /// Usage: `let rows = try await session.query("SELECT id FROM images WHERE path = $1", binds)`
    @discardableResult
    package func query(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws -> PostgresRowSequence {
        do {
            return try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger)
        } catch {
            throw Self.backendError(error, endpoint: descriptor.endpoint, connecting: false)
        }
    }

    /// Runs one statement and drains its rows.
    ///
    /// Usage: `try await session.execute("CREATE TABLE t(x int)")`
    package func execute(_ sql: String, _ binds: PostgresBindings = PostgresBindings()) async throws {
        let rows = try await query(sql, binds)
        do {
            for try await _ in rows {}
        } catch {
            throw Self.backendError(error, endpoint: descriptor.endpoint, connecting: false)
        }
    }

    /// Every row of a statement, decoded by `decode`.
    ///
    /// Usage: `let ids = try await session.all("SELECT id FROM images") { try $0.decode(Int64.self) }`
    package func all<Value>(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), _ decode: (PostgresRow) throws -> Value) async throws -> [Value] {
        let rows = try await query(sql, binds)
        var values: [Value] = []
        do {
            for try await row in rows { values.append(try decode(row)) }
        } catch let error as PostgresBackendError {
            throw error
        } catch {
            throw Self.backendError(error, endpoint: descriptor.endpoint, connecting: false)
        }
        return values
    }

    /// A transaction's isolation level.
    ///
    /// Usage: `try await session.transaction(isolation: .repeatableRead) { ... }`
    package enum Isolation: String, Sendable {
        /// Each statement sees what was committed before it began (PostgreSQL's default).
        case readCommitted = "READ COMMITTED"
        /// Every statement sees what was committed before the transaction's first one.
        case repeatableRead = "REPEATABLE READ"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    ///
    /// Usage: `try await session.transaction { try await $0.execute("DELETE FROM images") }`
    package func transaction<Value>(isolation: Isolation = .readCommitted, _ body: (PostgresSession) async throws -> Value) async throws -> Value {
        try await execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)")
        do {
            let value = try await body(self)
            try await execute("COMMIT")
            return value
        } catch {
            try? await execute("ROLLBACK")
            throw error
        }
    }

    /// Closes the connection (errors on the way out are of no use to anyone).
    ///
    /// Usage: `await session.close()`
    package func close() async {
        try? await connection.close()
    }

    /// A PostgresNIO error as a sentence naming the server (PSQLError's own description is a
    /// placeholder by design, so the server's message or the network error is read out of it).
    static func backendError(_ error: any Error, endpoint: String, connecting: Bool) -> any Error {
        if error is PostgresBackendError || error is CancellationError { return error }
        guard let error = error as? PSQLError else {
            return connecting ? PostgresBackendError.unreachable(endpoint: endpoint, reason: "\(error)") : error
        }
        if let message = error.serverInfo?[.message] {
            var reason = message
            if let state = error.serverInfo?[.sqlState] { reason += " (SQLSTATE \(state))" }
            if let detail = error.serverInfo?[.detail] { reason += "; \(detail)" }
            return connecting ? PostgresBackendError.rejected(endpoint: endpoint, reason: reason)
                : PostgresBackendError.statement(endpoint: endpoint, reason: reason)
        }
        let reason = error.underlying.map { "\($0)" } ?? "\(error.code)"
        if connecting || error.code == .connectionError || error.code == .serverClosedConnection || error.code == .uncleanShutdown
            || error.code == .clientClosedConnection {
            return PostgresBackendError.unreachable(endpoint: endpoint, reason: reason)
        }
        return PostgresBackendError.statement(endpoint: endpoint, reason: reason)
    }
}
