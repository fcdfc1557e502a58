import Dispatch

/// Runs synchronous work (SQLite reads, image decoding) on Dispatch threads, at most `width` at a
/// time, so Swift concurrency's cooperative threads stay free to answer cheap requests (a
/// revalidated thumbnail, a static file) while the cores are busy. Waiting callers queue in
/// order without holding a thread.
///
/// It is also a task executor: ``runPreferring(_:)`` runs asynchronous code whose nonisolated
/// parts block (the SQLite index's synchronous methods called through `IndexBackend`) on the
/// same threads, with the same limit.
///
/// ```swift
/// let work = BlockingWork(width: 2, label: "reads")
/// let page = try await work.run { try index.search(query) }
/// let same = try await work.runPreferring { try await backend.search(query) }
/// ```
final class BlockingWork: TaskExecutor, Sendable {
    private let permits: SlotQueue
    private let queue: DispatchQueue
    private static let labelKey = DispatchSpecificKey<String>()

    init(width: Int, label: String) {
        permits = SlotQueue(count: max(1, width))
        queue = DispatchQueue(label: label, attributes: .concurrent)
        queue.setSpecific(key: Self.labelKey, value: label)
    }

    /// The label of the pool whose thread runs the caller, nil off every pool (for tests).
    static var currentLabel: String? { DispatchQueue.getSpecific(key: labelKey) }

    /// Runs `body` on a Dispatch thread once a slot is free; returns or throws what it did.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        let permit = await permits.take()
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { try body() }) }
        }
        await permits.give(back: permit)
        return try result.get()
    }

    /// Runs `body` with this as its preferred task executor once a slot is free: its
    /// nonisolated code (and the synchronous calls it makes) runs on the Dispatch threads.
    func runPreferring<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let permit = await permits.take()
        let result: Result<T, any Error>
        do {
            result = .success(try await withTaskExecutorPreference(self) { try await body() })
        } catch {
            result = .failure(error)
        }
        await permits.give(back: permit)
        return try result.get()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
