/// How an op writes the uint8 input rows of the int8 pointwise convolution that alone reads its
/// output, in place of floats: that convolution's per-channel multipliers and zero point, and its
/// row length in bytes (`QuantizedMatrix.rowBytes`, the channels rounded up to 4, zeros past them),
/// as `cls_quantize_u8` would write them. The rows fit in the output value's float buffer.
///
/// Usage: `if let rows = QuantizedRows(channels: 144, for: projection.matrix) { ... }`
struct QuantizedRows: Sendable {
    let multipliers: AlignedArray<Float>
    let zeroPoint: Int32
    let rowBytes: Int

    /// Nil unless pixels of `channels` values are `matrix`'s input rows and those rows fit where
    /// the floats would have gone.
    init?(channels: Int, for matrix: QuantizedMatrix) {
        guard channels == matrix.inputs, matrix.rowBytes <= matrix.inputs * MemoryLayout<Float>.size else { return nil }
        multipliers = matrix.multipliers
        zeroPoint = Int32(matrix.input.zeroPoint)
        rowBytes = matrix.rowBytes
    }

    /// `output`'s float buffer seen as the uint8 rows.
    ///
    /// Usage: `let q = rows.bytes(of: output)`
    func bytes(of output: UnsafeMutablePointer<Float>) -> UnsafeMutablePointer<UInt8> {
        UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self)
    }
}
