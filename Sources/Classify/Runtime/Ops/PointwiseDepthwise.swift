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
    /// Set when the output is an int8 pointwise convolution's uint8 input rows.
    private(set) var quantizedOutput: QuantizedRows?

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
        guard depthwise.residual == nil, let rows = QuantizedRows(channels: depthwise.outputShape.channels, for: matrix) else { return nil }
        var fused = self
        fused.quantizedOutput = rows
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
        Self.maximumPipelines * cls_pointwise_depthwise_scratch(
            Int32(expand.outputShape.width), Int32(expand.outputShape.channels), Int32(depthwise.kernel.height),
            Int32(depthwise.stride.height), Int32(bandRows), Int32(depthwise.outputShape.width), quantizedOutput == nil ? 0 : 1)
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (expandLower, expandUpper) = expand.activation.clampRange
        let (lower, upper) = depthwise.activation.clampRange
        let source = expand.inputShape, middle = expand.outputShape, result = depthwise.outputShape
        let rows = quantizedOutput
        cls_pointwise_depthwise(
            inputs[0], Int32(source.height), Int32(source.width), Int32(source.channels),
            expand.packedWeights.base, expand.bias.base, Int32(middle.channels), expandLower, expandUpper,
            depthwise.packedWeights.base, depthwise.bias.base, Int32(depthwise.kernel.height), Int32(depthwise.kernel.width),
            Int32(depthwise.stride.height), Int32(depthwise.stride.width), Int32(depthwise.padding.top), Int32(depthwise.padding.left),
            lower, upper, output, rows?.multipliers.base, rows?.zeroPoint ?? 0, rows?.bytes(of: output), rows?.rowBytes ?? 0,
            Int32(result.height), Int32(result.width), Int32(bandRows), scratch, scratchCount)
    }
}
