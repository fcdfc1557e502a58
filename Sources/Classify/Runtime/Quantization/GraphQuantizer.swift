/// Turns a compiled fp32 graph into its int8 version: every pointwise convolution and fully
/// connected layer whose input has a calibrated range in the table becomes its int8 op
/// (`QuantizedPointwiseConvOperation`, `QuantizedFullyConnectedOperation`), its input smoothed
/// per channel when the table says so (``InputCalibration``); the other ops
/// (stem, depthwise, pooling, softmax) stay fp32. The ops keep their values, so the memory plan
/// is unchanged; only the scratch may grow (the quantized input rows).
///
/// Pointwise convolutions with fewer than `minimumInputChannels` inputs stay fp32, and so does
/// the expansion fused with its depthwise convolution (`PointwiseDepthwiseOperation`, Lite0's
/// first, 16 -> 96 at 112x112): with so few inputs per output the quantization pass over the input
/// and the fp32 store cost more than the integer sums save.
enum GraphQuantizer {
    /// Measured with the int8 GEMM (quantization pass included) and the fp32 GEMM alone on Lite0's
    /// shapes, best of 30 calls, AVX-512 VNNI, Xeon family 6 model 207, load average 17 (see
    /// docs/performance.md, "int8"): 3136 x 24 -> 144 took 0.27 ms in int8 against 0.20 ms in fp32,
    /// 784 x 40 -> 240 0.07 ms against 0.10 ms, 49 x 1152 -> 192 0.05 ms against 0.14 ms.
    static let minimumInputChannels = 32

    /// Usage: `let int8 = GraphQuantizer.quantize(graph, table: table)`
    static func quantize(_ graph: CompiledGraph, table: QuantizationTable) -> CompiledGraph {
        let operations: [any GraphOperation] = graph.operations.map { operation in
            guard let source = operation.inputs.first, let range = table.activations[graph.valueNames[source]] else { return operation }
            let input = InputCalibration(range: range, channels: table.channels?[graph.valueNames[source]], smoothing: table.smoothing)
            if let conv = operation as? Conv2DOperation, conv.inputShape.channels >= minimumInputChannels, let quantized = QuantizedPointwiseConvOperation(conv, input: input) {
                return quantized
            }
            if let dense = operation as? FullyConnectedOperation {
                return QuantizedFullyConnectedOperation(dense, input: input, batch: graph.batch)
            }
            return operation
        }
        return CompiledGraph(
            operations: operations, shapes: graph.shapes, valueNames: graph.valueNames, plan: graph.plan,
            scratchCount: operations.map(\.scratchCount).max() ?? 0, input: graph.input, batch: graph.batch)
    }

    /// The ops `quantize` would turn to int8: pointwise convolutions and fully connected layers.
    static func isQuantizable(_ operation: any GraphOperation) -> Bool {
        if let conv = operation as? Conv2DOperation { return conv.strategy == .pointwise && conv.inputShape.channels >= minimumInputChannels }
        return operation is FullyConnectedOperation
    }
}
