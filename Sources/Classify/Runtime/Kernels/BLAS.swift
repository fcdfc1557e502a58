import CClassifyBLAS

/// The one place the runtime talks to BLAS (OpenBLAS through its CBLAS interface). Since the
/// runtime's own kernels (CClassifyKernels) took over pointwise convolutions and the classifier,
/// only the im2col path (grouped convolutions that are not depthwise) still calls it.
enum BLAS {
    /// C[m x n] = A[m x k] * B[k x n] (+ C when `accumulate`), all row-major and densely packed.
    @inline(__always)
    static func multiply(
        m: Int, n: Int, k: Int,
        a: UnsafePointer<Float>, lda: Int? = nil,
        b: UnsafePointer<Float>, ldb: Int? = nil,
        c: UnsafeMutablePointer<Float>, ldc: Int? = nil,
        accumulate: Bool = false
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k),
            1, a, Int32(lda ?? k), b, Int32(ldb ?? n), accumulate ? 1 : 0, c, Int32(ldc ?? n))
    }

    /// Threads OpenBLAS may start for one call. `ComputeThreads` keeps it at 1: OpenBLAS's idle
    /// threads spin on sched_yield and would compete with the runtime's own worker.
    static var threadCount: Int {
        get { Int(openblas_get_num_threads()) }
        set { openblas_set_num_threads(Int32(max(1, newValue))) }
    }
}
