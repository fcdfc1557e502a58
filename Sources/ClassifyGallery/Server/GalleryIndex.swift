import ClassifySupport
import TagIndex

/// The index the gallery reads, on either backend, and how its reads run.
///
/// SQLite reads block: they run on the database pool's threads (``BlockingWork``, a task executor
/// preference), at most `concurrency` at once, so Swift's cooperative threads stay free. A
/// PostgreSQL read waits on the network without holding a thread. A PostgreSQL connection that
/// broke (the server restarted or went away) is opened again by the next request; while the
/// server cannot be reached, requests answer 503 with the reason (a ``GalleryError``).
///
/// ```swift
/// let index = try await GalleryIndex(location: .sqlite(url), work: BlockingWork(width: 2, label: "db"))
/// let page = try await index.read { try await $0.search(Query()) }
/// ```
final class GalleryIndex: Sendable {
    let location: IndexLocation
    private let work: BlockingWork
    private let current: Locked<any IndexBackend>
    private let reopening = SingleFlight<Int, any IndexBackend>()

    /// Opens the index (read-only for SQLite); throws when it cannot be read.
    init(location: IndexLocation, work: BlockingWork) async throws {
        self.location = location
        self.work = work
        current = Locked(try await Self.open(location))
    }

    static func open(_ location: IndexLocation) async throws -> any IndexBackend {
        switch location {
        case .sqlite(let url): try TagIndex(readingFrom: url)
        case .postgres(let descriptor): try await PostgresIndex.open(descriptor)
        }
    }

    /// Runs `body` on the index: SQLite's blocking reads on the pool's threads, PostgreSQL's
    /// after reconnecting when the connection broke.
    func read<T: Sendable>(_ body: @escaping @Sendable (any IndexBackend) async throws -> T) async throws -> T {
        switch location {
        case .sqlite:
            let index = current.withLock { $0 }
            return try await work.runPreferring { try await body(index) }
        case .postgres:
            return try await body(try await connected())
        }
    }

    /// The PostgreSQL index, opened again when its connection is gone (once for all the requests
    /// that find it so); a 503 while the server cannot be reached.
    private func connected() async throws -> any IndexBackend {
        let index = current.withLock { $0 }
        guard index.isConnectionClosed else { return index }
        return try await reopening.value(for: 0) { [location, current] in
            let broken = current.withLock { $0 }
            guard broken.isConnectionClosed else { return broken }
            let fresh: any IndexBackend
            do {
                fresh = try await Self.open(location)
            } catch {
                throw GalleryError(.serviceUnavailable, "The index at \(location) cannot be reached right now (\(error)); try again in a moment.")
            }
            current.withLock { $0 = fresh }
            // Not awaited: closing a connection the server cut can wait a long time.
            Task { await broken.close() }
            return fresh
        }
    }

    /// Closes the connection (nothing to do for SQLite).
    func close() async {
        await current.withLock { $0 }.close()
    }
}
