/// A pointwise (1x1, stride 1) convolution in int8: the input map quantized to uint8 with its
/// calibrated scale and zero point, per-output-channel int8 weights, int32 sums, and the same
/// store as the fp32 op (bias, activation clamp, an optional fused residual add) writing fp32.
///
/// Built by `Conv2DOperation`'s builder in place of the fp32 op where the network is compiled with
/// a quantization table that covers it (`GraphQuantizer`); the fp32 neighbours (depthwise
/// convolutions, pooling) read and write fp32 as before, so the quantization happens at this op's
/// input, one pass over the map into scratch; or, where a depthwise convolution alone feeds it,
/// in that convolution's store (`QuantizingDepthwiseOperation`, `readingQuantizedInput()`).
struct QuantizedPointwiseConvOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let activation: Activation
    let residual: Conv2DOperation.Residual?
    let matrix: QuantizedMatrix
    /// Whether the input value holds this op's uint8 rows already (written by a
    /// `QuantizingDepthwiseOperation`) rather than floats.
    let readsQuantizedInput: Bool

    /// - Parameter weights: [outChannels][inputShape.channels] (PyTorch's [Cout][Cin][1][1]), read
    ///   in place (the mapped weights file).
    init(
        name: String, input: ValueID, output: ValueID, inputShape: FeatureMapShape, outChannels: Int, activation: Activation,
        weights: UnsafeBufferPointer<Float>, bias: [Float], calibration: InputCalibration
    ) {
        self.name = name
        inputs = [input]
        self.output = output
        self.inputShape = inputShape
        outputShape = FeatureMapShape(height: inputShape.height, width: inputShape.width, channels: outChannels)
        self.activation = activation
        residual = nil
        matrix = calibration.matrix(weights: weights, outputs: outChannels, inputs: inputShape.channels, bias: bias)
        readsQuantizedInput = false
    }

    private init(_ base: QuantizedPointwiseConvOperation, residual: Conv2DOperation.Residual?, output: ValueID, readsQuantizedInput: Bool) {
        name = base.name
        inputs = residual.map { [base.inputs[0], $0.value] } ?? base.inputs
        self.output = output
        inputShape = base.inputShape
        outputShape = base.outputShape
        activation = base.activation
        self.residual = residual
        matrix = base.matrix
        self.readsQuantizedInput = readsQuantizedInput
    }

    /// This convolution with `Add(self, value)` (then `activation`) done in its store, writing
    /// `output` (nil when it already adds one), as `Conv2DOperation.fusingResidual`.
    func fusingResidual(_ value: ValueID, activation: Activation, output: ValueID) -> QuantizedPointwiseConvOperation? {
        guard residual == nil else { return nil }
        return QuantizedPointwiseConvOperation(
            self, residual: Conv2DOperation.Residual(value: value, activation: activation), output: output, readsQuantizedInput: readsQuantizedInput)
    }

    /// This convolution reading its input as the uint8 rows a `QuantizingDepthwiseOperation` made
    /// of it with this op's matrix.
    func readingQuantizedInput() -> QuantizedPointwiseConvOperation {
        QuantizedPointwiseConvOperation(self, residual: residual, output: output, readsQuantizedInput: true)
    }

    var kindDescription: String { "Conv2D pointwise int8 1x1/1" + (residual == nil ? "" : " +add") + (readsQuantizedInput ? " <-uint8" : "") }

    var scratchCount: Int { readsQuantizedInput ? 0 : matrix.scratchCount(rows: inputShape.pixelCount) }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let residualValue = residual == nil ? nil : inputs[1]
        if readsQuantizedInput {
            matrix.run(
                rows: inputShape.pixelCount, quantized: UnsafeRawPointer(inputs[0]).assumingMemoryBound(to: UInt8.self),
                activation: activation, residual: residualValue, residualActivation: residual?.activation ?? .none, output: output)
            return
        }
        matrix.run(
            rows: inputShape.pixelCount, source: inputs[0], activation: activation,
            residual: residualValue, residualActivation: residual?.activation ?? .none,
            output: output, scratch: scratch)
    }
}
