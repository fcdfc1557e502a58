import TagIndex
import ClassifySupport
import Foundation

/// A PostgreSQL connection that outlives the server going away: a statement or transaction that
/// fails because the connection broke (the server restarted, the network dropped) connects again
/// with exponential backoff and runs again; one that lost a deadlock runs again at once. After
/// `patience` without success the last error is thrown, naming the server.
///
/// Only idempotent work may go through it: a transaction whose COMMIT was sent but not
/// acknowledged may have committed, and runs again. Everything the index writers send is
/// written so (upserts, deletes of what is replaced, queue rows removed by key).
///
/// One task owns a session (it is not `Sendable`); each worker of an index run has its own.
///
/// Usage:
/// ```swift
/// let session = ReconnectingSession(descriptor, patience: .seconds(120))
/// let count = try await session.run { try await $0.all("SELECT COUNT(*) FROM images") { try $0.decode(Int64.self) } }
/// try await session.transaction { try await $0.execute("DELETE FROM index_queue WHERE path = $1", binds) }
/// await session.close()
/// ```
final class ReconnectingSession {
    let descriptor: PostgresDescriptor
    /// How long to keep trying after a failure before giving up.
    let patience: Duration
    private var session: PostgresSession?

    /// Reconnections made so far (for tests and reports).
    private(set) var reconnections = 0

    init(_ descriptor: PostgresDescriptor, patience: Duration, connected session: PostgresSession? = nil) {
        self.descriptor = descriptor
        self.patience = patience
        self.session = session
    }

    /// Runs `body` on the connection, connecting (again) as needed.
    func run<Value: Sendable>(_ body: @escaping (PostgresSession) async throws -> Value) async throws -> Value {
        let clock = ContinuousClock()
        let deadline = clock.now + patience
        var attempt = 0
        while true {
            do {
                let current: PostgresSession
                if let session, !session.connection.isClosed {
                    current = session
                } else {
                    if let closed = session { Task { await closed.close() } }
                    current = try await PostgresSession.connect(descriptor)
                    if attempt > 0 { reconnections += 1 }
                    session = current
                }
                return try await Self.watching(current, body)
            } catch {
                let recovery = PostgresBackendError.recovery(for: error)
                guard recovery != .none, clock.now < deadline, !Task.isCancelled else { throw error }
                if recovery == .reconnect, let broken = session {
                    session = nil
                    // Not awaited: closing a connection the server cut can wait for ever (see `watching`).
                    Task { await broken.close() }
                }
                // 50 ms, doubling to 2 s, with jitter so the workers of many machines do not
                // come back at the same instant.
                let base = min(2.0, 0.05 * pow(2.0, Double(min(attempt, 10))))
                let delay = recovery == .retryTransaction ? Double.random(in: 0...0.02) : base * Double.random(in: 0.5...1.0)
                attempt += 1
                try await Task.sleep(for: .milliseconds(Int(delay * 1000)))
            }
        }
    }

    /// Runs `body` on `session`, failing it with ``PostgresBackendError/unreachable(endpoint:reason:)``
    /// when the connection closes under it.
    ///
    /// PostgresNIO (1.33) can leave a statement waiting for ever when the server goes away while
    /// the process is not looking (seen after a server restart while an indexer was stopped): the
    /// channel is closed but the statement is never failed. A watcher looks at the connection
    /// every quarter second and gives up on the statement (left suspended; nothing uses its
    /// results) a moment after the connection closed.
    private static func watching<Value: Sendable>(_ session: PostgresSession, _ body: @escaping (PostgresSession) async throws -> Value) async throws -> Value {
        // The body runs in a task of its own so the watcher can stop waiting for it; only one of
        // them resumes the caller, and the caller does nothing else meanwhile.
        let work = UncheckedSendableBody(body: body)
        return try await FirstResult<Value>.race { first in
            let watcher = Task {
                while !first.isFinished && !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(250))
                    guard session.connection.isClosed else { continue }
                    // A statement that fails by itself says why; wait for it a little.
                    try? await Task.sleep(for: .milliseconds(500))
                    first.finish(.failure(PostgresBackendError.unreachable(endpoint: session.descriptor.endpoint, reason: "the connection was closed")))
                }
            }
            Task {
                do { first.finish(.success(try await work.body(session))) } catch { first.finish(.failure(error)) }
                watcher.cancel()
            }
        }
    }

    /// Runs `body` in a transaction (committed when it returns), again from the start after a
    /// broken connection or a lost deadlock.
    func transaction<Value: Sendable>(
        isolation: PostgresSession.Isolation = .readCommitted, _ body: @escaping (PostgresSession) async throws -> Value
    ) async throws -> Value {
        try await run { session in try await session.transaction(isolation: isolation, body) }
    }

    /// Closes the connection, if any.
    func close() async {
        if let session { await session.close() }
        session = nil
    }
}

/// A closure handed to the task that runs it while its caller waits: the caller is suspended
/// until the task (or the watcher) resumes it, so the closure's state is never used by both.
private struct UncheckedSendableBody<Value>: @unchecked Sendable {
    let body: (PostgresSession) async throws -> Value
}
