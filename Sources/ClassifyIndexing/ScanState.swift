import ClassifySupport

/// Counters of the walk, read by the workers for progress while the walk goes on.
final class ScanState: Sendable {
    struct Snapshot: Sendable {
        var scanned = 0
        var candidates = 0
        /// Files passed over as not images (no image extension, no image signature).
        var skipped = 0
        var complete = false
        /// A worker stopped because its task was cancelled, leaving files queued.
        var interrupted = false
        var error: (any Error)?
    }

    private let state = Locked(Snapshot())

    func snapshot() -> Snapshot { state.withLock { $0 } }
    func update(_ body: (inout Snapshot) -> Void) { state.withLock { body(&$0) } }
}
