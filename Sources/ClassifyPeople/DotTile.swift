import CClassifyKernels

/// Dot products of a block of query descriptors with a block of row descriptors: the one place
/// grouping computes them, so every distance it compares is computed the same way.
///
/// Rows are widened from fp16 and packed once per block into the GEMM kernel's panels
/// (`cls_gemm_pack_weights`: 16 rows side by side per k); `cls_gemm_packed` (AVX-512, AVX2 or
/// portable by CPU) then forms each dot product as one FMA chain over k in order, so the value
/// for (a, b) equals the value for (b, a) whatever tile either falls in. Called from grouping's own
/// threads; the kernel splits work further only if the process configured kernel threads.
struct DotTile {
    let dimension: Int
    private(set) var rowCount = 0
    private var widened: [Float] = []
    private var packed: [Float] = []
    private var queries: [Float] = []

    init(dimension: Int) { self.dimension = dimension }

    /// Makes `rows` (indices into `matrix`) the block's rows.
    mutating func load(rows: some Collection<Int>, from matrix: DescriptorMatrix) {
        rowCount = rows.count
        if widened.count < rowCount * dimension { widened = [Float](repeating: 0, count: rowCount * dimension) }
        let needed = cls_gemm_packed_count(dimension, rowCount)
        if packed.count < needed { packed = [Float](repeating: 0, count: needed) }
        let dimension = dimension
        widened.withUnsafeMutableBufferPointer { buffer in
            for (slot, row) in rows.enumerated() { matrix.widen(row, into: buffer.baseAddress! + slot * dimension) }
        }
        cls_gemm_pack_weights(widened, dimension, rowCount, &packed)
    }

    /// out[q * rowCount + r] = dot(query q, row r) for `queryRows` (indices into `matrix`).
    mutating func dots(of queryRows: some Collection<Int>, from matrix: DescriptorMatrix, into out: inout [Float]) {
        let count = queryRows.count
        guard count > 0, rowCount > 0 else { return }
        if queries.count < count * dimension { queries = [Float](repeating: 0, count: count * dimension) }
        if out.count < count * rowCount { out = [Float](repeating: 0, count: count * rowCount) }
        let dimension = dimension
        queries.withUnsafeMutableBufferPointer { buffer in
            for (slot, row) in queryRows.enumerated() { matrix.widen(row, into: buffer.baseAddress! + slot * dimension) }
        }
        cls_gemm_packed(
            count, rowCount, dimension, queries, dimension, packed, nil, -.infinity, .infinity, nil, 0, 0, &out, rowCount)
    }
}
