import CClassifyKernels

/// How many threads one inference may use.
///
/// With several images classified at once (one task each), every inference should stay on one
/// thread: `configure(1)`. For the lowest single-image latency, `configure(2)` lets the runtime's
/// kernels split each op across two. The runtime's kernels share one small pool of
/// persistent workers (spinning briefly between kernels, then sleeping); with 1, no worker runs.
/// If two inferences run at once with more than one thread, the second one simply runs its
/// kernels on its own thread rather than waiting for the pool.
///
/// ```swift
/// ComputeThreads.configure(1)   // task-level parallelism owns the cores
/// ```
public enum ComputeThreads {
    /// Sets the number of threads for one inference (clamped to at least 1).
    public static func configure(_ count: Int) {
        cls_threads_configure(Int32(max(1, count)))
    }

    /// The current setting.
    public static var current: Int { Int(cls_threads_count()) }
}
