/// How many threads one inference may use.
///
/// With several images classified at once (one task each), every inference should stay on one
/// thread: `configure(1)`. For the lowest single-image latency, `configure(2)` lets OpenBLAS and
/// the runtime's own parallel loops use two.
///
/// ```swift
/// ComputeThreads.configure(1)   // task-level parallelism owns the cores
/// ```
public enum ComputeThreads {
    /// Sets the number of threads for one inference (clamped to at least 1).
    public static func configure(_ count: Int) {
        BLAS.threadCount = max(1, count)
    }

    /// The current setting.
    public static var current: Int { BLAS.threadCount }
}
