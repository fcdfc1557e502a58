import Dispatch

/// Runs synchronous work (SQLite reads, image decoding) on Dispatch threads, at most `width` at a
/// time, so Swift concurrency's cooperative threads stay free to answer cheap requests (a
/// revalidated thumbnail, a static file) while the cores are busy. Waiting callers queue in
/// order without holding a thread.
///
/// ```swift
/// let work = BlockingWork(width: 2)
/// let page = try await work.run { try index.search(query) }
/// ```
final class BlockingWork: Sendable {
    private let permits: Permits
    private let queue: DispatchQueue

    init(width: Int, label: String) {
        permits = Permits(count: max(1, width))
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    /// Runs `body` on a Dispatch thread once a slot is free; returns or throws what it did.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        await permits.acquire()
        let result: Result<T, any Error> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result { try body() }) }
        }
        await permits.release()
        return try result.get()
    }
}

/// A counting semaphore for tasks: `acquire` suspends (without blocking a thread) until a permit is free.
private actor Permits {
    private var available: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(count: Int) { available = count }

    func acquire() async {
        if available > 0 {
            available -= 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func release() {
        if waiting.isEmpty {
            available += 1
        } else {
            waiting.removeFirst().resume()
        }
    }
}
