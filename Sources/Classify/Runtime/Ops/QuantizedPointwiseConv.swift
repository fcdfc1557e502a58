/// A pointwise (1x1, stride 1) convolution in int8: the input map quantized to uint8 with its
/// calibrated scale and zero point, per-output-channel int8 weights, int32 sums, and the same
/// store as the fp32 op (bias, activation clamp, an optional fused residual add) writing fp32.
///
/// Made from a compiled fp32 `Conv2DOperation` of the pointwise strategy by `GraphQuantizer`;
/// the fp32 neighbours (depthwise convolutions, pooling) read and write fp32 as before, so the
/// quantization happens at this op's input, one pass over the map into scratch.
struct QuantizedPointwiseConvOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let activation: Activation
    let residual: Conv2DOperation.Residual?
    let matrix: QuantizedMatrix

    /// - Parameter conv: a pointwise convolution (nil for any other strategy).
    init?(_ conv: Conv2DOperation, input: InputCalibration) {
        guard conv.strategy == .pointwise else { return nil }
        name = conv.name
        inputs = conv.inputs
        output = conv.output
        inputShape = conv.inputShape
        outputShape = conv.outputShape
        activation = conv.activation
        residual = conv.residual
        let (k, n) = (conv.inputShape.channels, conv.outputShape.channels)
        let weights = QuantizedMatrix.unpackFloatPanels(conv.packedWeights.base, inputs: k, outputs: n)
        let bias = Array(UnsafeBufferPointer(start: conv.bias.base, count: n))
        matrix = input.matrix(weights: weights, outputs: n, inputs: k, bias: bias)
    }

    var kindDescription: String { "Conv2D pointwise int8 1x1/1" + (residual == nil ? "" : " +add") }

    var scratchCount: Int { matrix.scratchCount(rows: inputShape.pixelCount) }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        matrix.run(
            rows: inputShape.pixelCount, source: inputs[0], activation: activation,
            residual: residual == nil ? nil : inputs[1], residualActivation: residual?.activation ?? .none,
            output: output, scratch: scratch)
    }
}
