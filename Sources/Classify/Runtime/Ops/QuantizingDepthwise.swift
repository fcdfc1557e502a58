import CClassifyKernels

/// A depthwise convolution whose output only an int8 pointwise convolution reads (an inverted
/// residual block's depthwise step before its int8 projection), writing that convolution's uint8
/// input instead of floats: the same bytes `cls_quantize_u8` would make of the floats, produced
/// in the depthwise store (`cls_depthwise_conv2d_u8`), so the map is neither written as floats
/// nor read again to be quantized.
///
/// The uint8 rows (`QuantizedRows`) fit in the output value's float-sized buffer, where the
/// reading op (`QuantizedPointwiseConvOperation.readingQuantizedInput()`)
/// takes them. Built by `GraphCompiler.fuseQuantizedInputs`.
///
/// Usage: `let fused = QuantizingDepthwiseOperation(depthwise: conv, for: projection.matrix)`
struct QuantizingDepthwiseOperation: GraphOperation {
    let depthwise: Conv2DOperation
    let rows: QuantizedRows

    /// Nil unless `depthwise` is a depthwise convolution without a fused residual whose channels
    /// are the inputs of `matrix`.
    init?(depthwise: Conv2DOperation, for matrix: QuantizedMatrix) {
        guard depthwise.strategy == .depthwise, depthwise.residual == nil,
            let rows = QuantizedRows(channels: depthwise.outputShape.channels, for: matrix)
        else { return nil }
        self.depthwise = depthwise
        self.rows = rows
    }

    var name: String { depthwise.name }
    var inputs: [ValueID] { depthwise.inputs }
    var output: ValueID { depthwise.output }
    var kindDescription: String { depthwise.kindDescription + " ->uint8" }
    /// The floats, on the paths that quantize them after the convolution (not AVX-512).
    var scratchCount: Int { depthwise.outputShape.elementCount }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (lower, upper) = depthwise.activation.clampRange
        let input = depthwise.inputShape, shape = depthwise.outputShape
        cls_depthwise_conv2d_u8(
            inputs[0], Int32(input.height), Int32(input.width), Int32(input.channels),
            depthwise.packedWeights.base, depthwise.bias.base, Int32(depthwise.kernel.height), Int32(depthwise.kernel.width),
            Int32(depthwise.stride.height), Int32(depthwise.stride.width), Int32(depthwise.padding.top), Int32(depthwise.padding.left),
            Int32(shape.height), Int32(shape.width), lower, upper, rows.multipliers.base, rows.zeroPoint,
            rows.bytes(of: output), rows.rowBytes, scratch)
    }
}
