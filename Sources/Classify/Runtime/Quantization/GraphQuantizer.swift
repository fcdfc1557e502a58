/// Which ops of a network compiled with a quantization table (`GraphCompiler.compile(_:weights:quantization:)`)
/// run in int8: every pointwise convolution and fully connected layer whose input has a
/// calibrated range in the table is built as its int8 op (`QuantizedPointwiseConvOperation`,
/// `QuantizedFullyConnectedOperation`) straight from the weights file, its input smoothed per
/// channel when the table says so (``InputCalibration``), and never packed for the fp32 GEMM;
/// the other ops (stem, depthwise, pooling, softmax) stay fp32. The ops keep the fp32 graph's
/// values, so the memory plan is the same; only the scratch may grow (the quantized input rows).
///
/// Pointwise convolutions with fewer than `minimumInputChannels` inputs stay fp32, among them the
/// expansion fused with its depthwise convolution (`PointwiseDepthwiseOperation`, Lite0's first,
/// 16 -> 96 at 112x112): with so few inputs per output the quantization pass over the input and
/// the fp32 store cost more than the integer sums save. (An int8 expansion is not fused.)
enum GraphQuantizer {
    /// Measured with the int8 GEMM (quantization pass included) and the fp32 GEMM alone on Lite0's
    /// shapes, best of 30 calls, AVX-512 VNNI, Xeon family 6 model 207, load average 17 (see
    /// docs/performance.md, "int8"): 3136 x 24 -> 144 took 0.27 ms in int8 against 0.20 ms in fp32,
    /// 784 x 40 -> 240 0.07 ms against 0.10 ms, 49 x 1152 -> 192 0.05 ms against 0.14 ms.
    static let minimumInputChannels = 32

    /// The calibration of a pointwise convolution (`pointwise`) or fully connected layer reading
    /// `input` (`channels` channels) when `table` turns it to int8, nil when it stays fp32: its
    /// input must have a calibrated range, and a convolution `minimumInputChannels` inputs.
    ///
    /// Usage: `if let calibration = GraphQuantizer.calibration(ofInput: name, channels: 40, pointwise: true, table: table) { ... }`
    static func calibration(ofInput input: String, channels: Int, pointwise: Bool, table: QuantizationTable) -> InputCalibration? {
        guard let range = table.activations[input], !pointwise || channels >= minimumInputChannels else { return nil }
        return InputCalibration(range: range, channels: table.channels?[input], smoothing: table.smoothing)
    }

    /// The ops of an fp32 graph a table could turn to int8: pointwise convolutions and fully connected layers.
    static func isQuantizable(_ operation: any GraphOperation) -> Bool {
        if let conv = operation as? Conv2DOperation { return conv.strategy == .pointwise && conv.inputShape.channels >= minimumInputChannels }
        return operation is FullyConnectedOperation
    }
}
