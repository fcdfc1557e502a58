/// A fully connected layer (the classifier) in int8: the input vector quantized to uint8 with its
/// calibrated scale and zero point, per-output int8 weights, int32 sums, fp32 out with bias and
/// activation in the store. A batch is one GEMM over the items' rows, as in the fp32 op.
///
/// Built by `FullyConnectedOperation`'s builder in place of the fp32 op where the network is
/// compiled with a quantization table that covers it (`GraphQuantizer`).
struct QuantizedFullyConnectedOperation: BatchedGraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let activation: Activation
    let matrix: QuantizedMatrix
    /// Items per run the scratch is sized for (the graph's batch).
    let batch: Int

    /// - Parameter weights: [outFeatures][inFeatures], read in place (the mapped weights file).
    init(
        name: String, input: ValueID, output: ValueID, inFeatures: Int, outFeatures: Int, activation: Activation,
        weights: UnsafeBufferPointer<Float>, bias: [Float], calibration: InputCalibration, batch: Int
    ) {
        self.name = name
        inputs = [input]
        self.output = output
        self.activation = activation
        self.batch = batch
        matrix = calibration.matrix(weights: weights, outputs: outFeatures, inputs: inFeatures, bias: bias)
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
