import CClassifyKernels

/// y = W x + b with W given [outFeatures][inFeatures] (row-major, as converted), fused activation.
///
/// Runs as a GEMM on the pointwise kernel (`cls_gemm_packed`), one row per item of the batch:
/// W is [n][k] in GEMM terms and is packed once into panels of 16 outputs; bias and clamp happen
/// in the store, and with two threads the panels are split between them.
struct FullyConnectedOperation: BatchedGraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inFeatures: Int
    let outFeatures: Int
    let packedWeights: AlignedFloats
    let bias: AlignedFloats
    let activation: Activation

    init(name: String, inputs: [ValueID], output: ValueID, inFeatures: Int, outFeatures: Int, weights: [Float], bias: [Float], activation: Activation) {
        self = weights.withUnsafeBufferPointer { weights in
            FullyConnectedOperation(
                name: name, inputs: inputs, output: output, inFeatures: inFeatures, outFeatures: outFeatures,
                weights: weights, bias: bias, activation: activation)
        }
    }

    /// - Parameter weights: as above, read in place (the mapped weights file) while packing.
    init(name: String, inputs: [ValueID], output: ValueID, inFeatures: Int, outFeatures: Int, weights: UnsafeBufferPointer<Float>, bias: [Float], activation: Activation) {
        self.name = name
        self.inputs = inputs
        self.output = output
        self.inFeatures = inFeatures
        self.outFeatures = outFeatures
        self.activation = activation
        self.bias = AlignedFloats(bias)
        packedWeights = AlignedFloats(count: cls_gemm_packed_count(inFeatures, outFeatures)) { packed in
            cls_gemm_pack_weights(weights.baseAddress, inFeatures, outFeatures, packed)
        }
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        run(batch: 1, inputs: inputs, output: output, scratch: scratch)
    }

    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (lower, upper) = activation.clampRange
        cls_gemm_packed(
            batch, outFeatures, inFeatures, inputs[0], inFeatures, packedWeights.base, bias.base, lower, upper,
            nil, -.infinity, .infinity, output, outFeatures)
    }
}

extension FullyConnectedOperation: GraphOperationBuilder {
    static let opName = "FullyConnected"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let inFeatures = try context.required(node.inFeatures, "inFeatures", of: node)
        let outFeatures = try context.required(node.outFeatures, "outFeatures", of: node)
        guard input.shape.elementCount == inFeatures else {
            throw context.error(node, "inFeatures is \(inFeatures) but input '\(node.inputs[0])' has \(input.shape.elementCount) values")
        }
        let bias = node.bias == nil ? [Float](repeating: 0, count: outFeatures) : try context.tensor(node.bias, "bias", shape: [outFeatures], of: node)
        let activation = try context.activation(of: node)
        let output = context.define(node.output, shape: .vector(outFeatures))
        let calibration = context.quantization.flatMap {
            GraphQuantizer.calibration(ofInput: node.inputs[0], channels: inFeatures, pointwise: false, table: $0)
        }
        return try context.withTensor(node.weight, "weight", shape: [outFeatures, inFeatures], of: node) { weights -> any GraphOperation in
            if let calibration {
                return QuantizedFullyConnectedOperation(
                    name: node.name, input: input.id, output: output, inFeatures: inFeatures, outFeatures: outFeatures,
                    activation: activation, weights: weights, bias: bias, calibration: calibration, batch: context.batch)
            }
            return FullyConnectedOperation(
                name: node.name, inputs: [input.id], output: output, inFeatures: inFeatures, outFeatures: outFeatures,
                weights: weights, bias: bias, activation: activation)
        }
    }
}
