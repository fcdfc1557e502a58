/// A fully connected layer (the classifier) in int8: the input vector quantized to uint8 with its
/// calibrated scale and zero point, per-output int8 weights, int32 sums, fp32 out with bias and
/// activation in the store. A batch is one GEMM over the items' rows, as in the fp32 op.
///
/// Made from a compiled fp32 `FullyConnectedOperation` by `GraphQuantizer`.
struct QuantizedFullyConnectedOperation: BatchedGraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let activation: Activation
    let matrix: QuantizedMatrix
    /// Items per run the scratch is sized for (the graph's batch).
    let batch: Int

    init(_ dense: FullyConnectedOperation, input: InputCalibration, batch: Int) {
        name = dense.name
        inputs = dense.inputs
        output = dense.output
        activation = dense.activation
        self.batch = batch
        let (k, n) = (dense.inFeatures, dense.outFeatures)
        let weights = QuantizedMatrix.unpackFloatPanels(dense.packedWeights.base, inputs: k, outputs: n)
        let bias = Array(UnsafeBufferPointer(start: dense.bias.base, count: n))
        matrix = input.matrix(weights: weights, outputs: n, inputs: k, bias: bias)
    }

    var kindDescription: String { "FullyConnected int8" }

    var scratchCount: Int { matrix.scratchCount(rows: batch) }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        run(batch: 1, inputs: inputs, output: output, scratch: scratch)
    }

    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        precondition(batch <= self.batch)
        matrix.run(
            rows: batch, source: inputs[0], activation: activation, residual: nil, residualActivation: .none,
            output: output, scratch: scratch)
    }
}
