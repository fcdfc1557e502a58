import CClassifyKernels

/// A pointwise (1x1) convolution whose output only feeds a depthwise one, run as a single op
/// in bands of rows (`cls_pointwise_depthwise`): the expanded map, the largest activation of a
/// MobileNet-style block (4.8 MB for EfficientNet-Lite0's block 1), then never leaves the cache.
///
/// Made by `GraphCompiler.fuseExpandDepthwise` from two `Conv2DOperation`s, whose packed weights
/// it shares; the result equals running them in turn. When an int8 pointwise convolution alone
/// reads its output, `GraphCompiler.fuseQuantizedInputs` makes it write that convolution's uint8
/// rows instead (``quantizing(for:)``), as `QuantizingDepthwiseOperation` does for a lone
/// depthwise convolution.
///
/// Usage: `let fused = PointwiseDepthwiseOperation(expand: expand, depthwise: depthwise)`
struct PointwiseDepthwiseOperation: GraphOperation {
    let expand: Conv2DOperation
    let depthwise: Conv2DOperation
    /// Output rows per band: the expanded rows one band needs fit in `bandBytes`.
    let bandRows: Int
    /// Set when the output is an int8 pointwise convolution's uint8 input (rows `rowBytes` apart).
    private(set) var quantizedOutput: QuantizedOutput?

    /// How the output is quantized: the reading convolution's multipliers and zero point.
    struct QuantizedOutput {
        let multipliers: AlignedArray<Float>
        let zeroPoint: Int32
        let rowBytes: Int
    }

    /// Fused when the expanded map is larger than L2 (512 KB per core here), where it would
    /// otherwise be written to and read back from memory.
    static let minimumExpandedBytes = 2 * 1024 * 1024
    /// Expanded rows of one band stay within this, leaving L2 room for the input and output rows.
    static let defaultBandBytes = 192 * 1024
    /// Pipelines scratch is sized for (one per thread, up to this many).
    static let maximumPipelines = 2

    init?(expand: Conv2DOperation, depthwise: Conv2DOperation, bandBytes: Int = defaultBandBytes) {
        guard expand.strategy == .pointwise, expand.residual == nil, depthwise.strategy == .depthwise,
            depthwise.inputs == [expand.output], depthwise.inputShape == expand.outputShape
        else { return nil }
        self.expand = expand
        self.depthwise = depthwise
        let rowBytes = expand.outputShape.width * expand.outputShape.channels * MemoryLayout<Float>.size
        let rowsThatFit = max(bandBytes / max(rowBytes, 1), depthwise.kernel.height)
        bandRows = max(1, (rowsThatFit - depthwise.kernel.height) / depthwise.stride.height + 1)
    }

    /// This op writing the uint8 input of the int8 convolution of `matrix` instead of floats; nil
    /// unless the depthwise convolution has no fused residual and its channels are `matrix`'s inputs.
    func quantizing(for matrix: QuantizedMatrix) -> PointwiseDepthwiseOperation? {
        guard depthwise.residual == nil, depthwise.outputShape.channels == matrix.inputs,
            matrix.rowBytes <= matrix.inputs * MemoryLayout<Float>.size
        else { return nil }
        var fused = self
        fused.quantizedOutput = QuantizedOutput(multipliers: matrix.multipliers, zeroPoint: Int32(matrix.input.zeroPoint), rowBytes: matrix.rowBytes)
        return fused
    }

    var name: String { expand.name + "+" + depthwise.name }
    var inputs: [ValueID] { expand.inputs }
    var output: ValueID { depthwise.output }
    var kindDescription: String {
        "Conv2D pointwise+depthwise \(depthwise.kernel.height)x\(depthwise.kernel.width)/\(depthwise.stride.height)"
            + (quantizedOutput == nil ? "" : " ->uint8")
    }

    var scratchCount: Int {
        let width = Int32(expand.outputShape.width), channels = Int32(expand.outputShape.channels)
        let kernel = Int32(depthwise.kernel.height), stride = Int32(depthwise.stride.height)
        let pipeline = quantizedOutput == nil
            ? cls_pointwise_depthwise_scratch(width, channels, kernel, stride, Int32(bandRows))
            : cls_pointwise_depthwise_u8_scratch(width, channels, kernel, stride, Int32(bandRows), Int32(depthwise.outputShape.width))
        return Self.maximumPipelines * pipeline
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (expandLower, expandUpper) = expand.activation.clampRange
        let (lower, upper) = depthwise.activation.clampRange
        let source = expand.inputShape, middle = expand.outputShape, result = depthwise.outputShape
        guard let quantizedOutput else {
            cls_pointwise_depthwise(
                inputs[0], Int32(source.height), Int32(source.width), Int32(source.channels),
                expand.packedWeights.base, expand.bias.base, Int32(middle.channels), expandLower, expandUpper,
                depthwise.packedWeights.base, depthwise.bias.base, Int32(depthwise.kernel.height), Int32(depthwise.kernel.width),
                Int32(depthwise.stride.height), Int32(depthwise.stride.width), Int32(depthwise.padding.top), Int32(depthwise.padding.left),
                lower, upper, output, Int32(result.height), Int32(result.width), Int32(bandRows), scratch, scratchCount)
            return
        }
        cls_pointwise_depthwise_u8(
            inputs[0], Int32(source.height), Int32(source.width), Int32(source.channels),
            expand.packedWeights.base, expand.bias.base, Int32(middle.channels), expandLower, expandUpper,
            depthwise.packedWeights.base, depthwise.bias.base, Int32(depthwise.kernel.height), Int32(depthwise.kernel.width),
            Int32(depthwise.stride.height), Int32(depthwise.stride.width), Int32(depthwise.padding.top), Int32(depthwise.padding.left),
            lower, upper, quantizedOutput.multipliers.base, quantizedOutput.zeroPoint,
            UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self), quantizedOutput.rowBytes,
            Int32(result.height), Int32(result.width), Int32(bandRows), scratch, scratchCount)
    }
}
