import CClassifyKernels

/// y = W x + b with W stored [outFeatures][inFeatures] (row-major, as converted), fused activation.
struct FullyConnectedOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inFeatures: Int
    let outFeatures: Int
    let weights: [Float]
    let bias: [Float]
    let activation: Activation

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (lower, upper) = activation.clampRange
        weights.withUnsafeBufferPointer { weights in
            BLAS.multiply(rows: outFeatures, columns: inFeatures, matrix: weights.baseAddress!, vector: inputs[0], into: output)
        }
        bias.withUnsafeBufferPointer { cls_bias_activation(output, 1, outFeatures, $0.baseAddress, lower, upper) }
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
        let weights = try context.tensor(node.weight, "weight", shape: [outFeatures, inFeatures], of: node)
        let bias = node.bias == nil ? [Float](repeating: 0, count: outFeatures) : try context.tensor(node.bias, "bias", shape: [outFeatures], of: node)
        let activation = try context.activation(of: node)
        let output = context.define(node.output, shape: .vector(outFeatures))
        return FullyConnectedOperation(
            name: node.name, inputs: [input.id], output: output, inFeatures: inFeatures, outFeatures: outFeatures,
            weights: weights, bias: bias, activation: activation)
    }
}
