import ClassifySupport
import TagIndex

/// The index the gallery reads, on either backend, and how its reads run.
///
/// SQLite reads block: they run on the database pool's threads (``BlockingWork``, a task executor
/// preference), at most `concurrency` at once, so Swift's cooperative threads stay free. A
/// PostgreSQL read waits on the network without holding a thread. A PostgreSQL connection that
/// broke (the server restarted or went away) is opened again by the next request; while the
/// server cannot be reached, requests answer 503 with the reason (a ``GalleryError``). A read
/// the server does not answer within `deadline` (a server powered off or cut from the network
/// sends no reset) is a 503 too, and its connection is given up for a new one.
///
/// ```swift
/// let index = try await GalleryIndex(location: .sqlite(url), work: BlockingWork(width: 2, label: "db"))
/// let page = try await index.read { try await $0.search(Query()) }
/// ```
final class GalleryIndex: Sendable {
    let location: IndexLocation
    /// How long a PostgreSQL read may wait for the server (tests shorten it for one request).
    let deadline: Locked<Duration>
    private let work: BlockingWork
    private let current: Locked<any IndexBackend>
    /// The index whose connection a read gave up on (it may never say it is closed).
    private let abandoned = Locked<ObjectIdentifier?>(nil)
    private let reopening = SingleFlight<Int, any IndexBackend>()

    /// Opens the index (read-only for SQLite); throws when it cannot be read.
    init(location: IndexLocation, work: BlockingWork, deadline: Duration = .seconds(60)) async throws {
        self.location = location
        self.deadline = Locked(deadline)
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
            let index = try await connected()
            let limit = deadline.withLock { $0 }
            let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
            return try await withDeadline(limit, expired: { [abandoned, location] in
                abandoned.withLock { $0 = ObjectIdentifier(index) }
                return GalleryError(.serviceUnavailable, "The index at \(location) did not answer within \(seconds.formatted()) s; try again in a moment.")
            }) {
                try await body(index)
            }
        }
    }

    /// Whether `index` must be opened again before it can answer.
    private static func isBroken(_ index: any IndexBackend, abandoned: Locked<ObjectIdentifier?>) -> Bool {
        index.isConnectionClosed || abandoned.withLock { $0 } == ObjectIdentifier(index)
    }

    /// The PostgreSQL index, opened again when its connection is gone (once for all the requests
    /// that find it so); a 503 while the server cannot be reached.
    private func connected() async throws -> any IndexBackend {
        let index = current.withLock { $0 }
        guard Self.isBroken(index, abandoned: abandoned) else { return index }
        return try await reopening.value(for: 0) { [location, current, abandoned] in
            let broken = current.withLock { $0 }
            guard Self.isBroken(broken, abandoned: abandoned) else { return broken }
            let fresh: any IndexBackend
            do {
                fresh = try await Self.open(location)
            } catch {
                throw GalleryError(.serviceUnavailable, "The index at \(location) cannot be reached right now (\(error)); try again in a moment.")
            }
            current.withLock { $0 = fresh }
            abandoned.withLock { $0 = nil }
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
