import ClassifySupport

/// Counters of the walk, read by the workers for progress while the walk goes on, and the signal
/// an idle worker waits on: every update wakes the workers waiting for one, so a worker that
/// found nothing to claim starts on the files the walk queues next (or ends when the walk is
/// complete, or when the other workers have finished the files they held) at once instead of at
/// its next poll.
final class ScanState: Sendable {
    struct Snapshot: Sendable {
        var scanned = 0
        var candidates = 0
        /// Files passed over as not images (no image extension, no image signature).
        var skipped = 0
        var complete = false
        /// A worker stopped because its task was cancelled, leaving files queued.
        var interrupted = false
        /// Files this process's workers have finished (written or failed).
        var finished = 0
        var error: (any Error)?
    }

    private struct Guarded {
        var snapshot = Snapshot()
        /// Counts the updates: a worker reads it before it claims and waits for a later one.
        var generation = 0
        var nextWaiter = 0
        var waiters: [(id: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Locked(Guarded())

    func snapshot() -> Snapshot { state.withLock { $0.snapshot } }

    /// The number of updates so far.
    var generation: Int { state.withLock { $0.generation } }

    func update(_ body: (inout Snapshot) -> Void) {
        let waiters = state.withLock { state in
            body(&state.snapshot)
            state.generation += 1
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume() }
    }

    /// Returns once an update has come after `generation` (at once if one already has), after
    /// `timeout` at the latest, or when the task is cancelled; true when it was an update.
    @discardableResult
    func waitForUpdate(after generation: Int, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.update(after: generation)
                return self.generation > generation
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Returns once an update has come after `generation`, or when the task is cancelled.
    private func update(after generation: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock that updates and cancellation take too, so neither an
                // update nor a cancellation can fall between the check and the wait.
                let now = state.withLock { state in
                    if state.generation > generation || Task.isCancelled { return true }
                    state.waiters.append((id, continuation))
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                state.waiters.firstIndex { $0.id == id }.map { state.waiters.remove(at: $0).continuation }
            }
            waiter?.resume()
        }
    }
}
