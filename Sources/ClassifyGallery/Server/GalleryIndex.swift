import ClassifySupport
import TagIndex

/// The index the gallery reads, on either backend, and how its reads run.
///
/// SQLite reads block: they run on the database pool's threads (``BlockingWork``, a task executor
/// preference), at most `concurrency` at once, so Swift's cooperative threads stay free. A
/// PostgreSQL read waits on the network without holding a thread, on one of `concurrency`
/// connections (opened as requests first need them; a read waits for a free one), so people
/// browsing at once do not queue behind each other's statements. A PostgreSQL connection that
/// broke (the server restarted or went away) is opened again by the next read that takes it;
/// while the server cannot be reached, requests answer 503 with the reason (a ``GalleryError``).
/// A read the server does not answer within `deadline` (a server powered off or cut from the
/// network sends no reset) is a 503 too, and its connection is given up for a new one.
///
/// ```swift
/// let index = try await GalleryIndex(location: .sqlite(url), opener: IndexOpener(), work: BlockingWork(width: 2, label: "db"))
/// let page = try await index.read { try await $0.search(Query()) }
/// ```
final class GalleryIndex: Sendable {
    let location: IndexLocation
    let opener: IndexOpener
    /// How long a PostgreSQL read may wait for the server (tests shorten it for one request).
    let deadline: Locked<Duration>
    private let work: BlockingWork
    /// The open index of each connection slot (one slot for SQLite); nil until first needed.
    private let slots: [Locked<(any IndexBackend)?>]
    /// Slots free for a read, the last released taken first (so a quiet gallery keeps using one
    /// connection).
    private let free: SlotQueue
    /// Indexes whose connection a read gave up on (they may never say they are closed).
    private let abandoned = Locked<Set<ObjectIdentifier>>([])
    private let reopening = SingleFlight<Int, any IndexBackend>()
    /// SQLite: the connection corrections write through, opened with the first (the reads' is read-only).
    private let writer = Locked<(any IndexBackend)?>(nil)

    /// Opens the index (read-only for SQLite; the first connection for PostgreSQL); throws when
    /// it cannot be read.
    init(location: IndexLocation, opener: IndexOpener, work: BlockingWork, connections: Int = 2, deadline: Duration = .seconds(60)) async throws {
        self.location = location
        self.opener = opener
        self.deadline = Locked(deadline)
        self.work = work
        let count: Int
        count = opener.allowsConcurrentConnections(location) ? max(1, connections) : 1
        let first = try await opener.openForReading(location)
        slots = (0..<count).map { Locked($0 == 0 ? first : nil) }
        free = SlotQueue(count: count)
    }

    /// Runs `body` on the index: SQLite's blocking reads on the pool's threads, PostgreSQL's on a
    /// free connection, opened again first when it broke.
    func read<T: Sendable>(_ body: @escaping @Sendable (any IndexBackend) async throws -> T) async throws -> T {
        if !opener.allowsConcurrentConnections(location) {
            // SQLite: one connection, whose blocking reads run on the pool's threads.
            let index = slots[0].withLock { $0 }!
            return try await work.runPreferring { try await body(index) }
        } else {
            let slot = await free.take()
            do {
                let index = try await connected(slot)
                let limit = deadline.withLock { $0 }
                let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
                let value = try await withDeadline(limit, expired: { [abandoned, location] in
                    abandoned.withLock { _ = $0.insert(ObjectIdentifier(index)) }
                    return GalleryError(.serviceUnavailable, "The index at \(location) did not answer within \(seconds.formatted()) s; try again in a moment.")
                }) {
                    try await body(index)
                }
                await free.give(back: slot)
                return value
            } catch {
                await free.give(back: slot)
                throw error
            }
        }
    }

    /// Runs `body`, which writes (people's corrections), on the index: for SQLite on a writable
    /// connection opened with the first write, one write at a time; for PostgreSQL on a read
    /// connection (any can write).
    func write<T: Sendable>(_ body: @escaping @Sendable (any IndexBackend) async throws -> T) async throws -> T {
        guard !opener.allowsConcurrentConnections(location) else { return try await read(body) }
        return try await work.runPreferring { [writer, location, opener] in
            let index: any IndexBackend
            if let open = writer.withLock({ $0 }) {
                index = open
            } else {
                do {
                    index = try await opener.open(location)
                } catch {
                    throw GalleryError(.serviceUnavailable, "The index at \(location) cannot be written (\(error)); corrections need write access to it.")
                }
                writer.withLock { $0 = index }
            }
            return try await body(index)
        }
    }

    /// Whether `index` must be opened again before it can answer.
    private static func isBroken(_ index: any IndexBackend, abandoned: Locked<Set<ObjectIdentifier>>) -> Bool {
        index.isConnectionClosed || abandoned.withLock { $0.contains(ObjectIdentifier(index)) }
    }

    /// The PostgreSQL index of `slot`, opened when the slot has none yet or its connection is gone;
    /// a 503 while the server cannot be reached.
    private func connected(_ slot: Int) async throws -> any IndexBackend {
        if let index = slots[slot].withLock({ $0 }), !Self.isBroken(index, abandoned: abandoned) { return index }
        return try await reopening.value(for: slot) { [location, opener, slots, abandoned] in
            let broken = slots[slot].withLock { $0 }
            if let broken, !Self.isBroken(broken, abandoned: abandoned) { return broken }
            let fresh: any IndexBackend
            do {
                fresh = try await opener.openForReading(location)
            } catch {
                throw GalleryError(.serviceUnavailable, "The index at \(location) cannot be reached right now (\(error)); try again in a moment.")
            }
            slots[slot].withLock { $0 = fresh }
            if let broken {
                abandoned.withLock { _ = $0.remove(ObjectIdentifier(broken)) }
                // Not awaited: closing a connection the server cut can wait a long time.
                Task { await broken.close() }
            }
            return fresh
        }
    }

    /// Closes the connections (nothing to do for SQLite).
    func close() async {
        for slot in slots {
            if let index = slot.withLock({ $0 }) { await index.close() }
        }
    }
}
