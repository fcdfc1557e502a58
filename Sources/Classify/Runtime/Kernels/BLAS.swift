import CClassifyBLAS

/// The one place the runtime talks to BLAS (OpenBLAS through its CBLAS interface), so replacing
/// or bypassing it for small matrices stays a local change.
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

    /// y[rows] = M[rows x columns] * x[columns], M row-major.
    @inline(__always)
    static func multiply(rows: Int, columns: Int, matrix: UnsafePointer<Float>, vector: UnsafePointer<Float>, into y: UnsafeMutablePointer<Float>) {
        cblas_sgemv(CblasRowMajor, CblasNoTrans, Int32(rows), Int32(columns), 1, matrix, Int32(columns), vector, 1, 0, y, 1)
    }

    /// Threads OpenBLAS may start for one call. The runtime sets 1 when it runs several
    /// inferences at once, so task-level parallelism and BLAS threads do not oversubscribe the CPU.
    static var threadCount: Int {
        get { Int(openblas_get_num_threads()) }
        set { openblas_set_num_threads(Int32(max(1, newValue))) }
    }
}
