/// dlib's `add_prev`: the sum of two NHWC maps that may differ in height, width and channels. The
/// output takes the larger of each; what one input lacks counts as 0. The face recognition
/// ResNet adds a 32-channel shortcut to a 64-channel block this way, and a 4x4 one to a 3x3 one.
struct PaddedAddOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let shapes: (FeatureMapShape, FeatureMapShape)
    let outputShape: FeatureMapShape
    let activation: Activation

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        output.update(repeating: 0, count: outputShape.elementCount)
        for (source, shape) in [(inputs[0], shapes.0), (inputs[1], shapes.1)] {
            for y in 0..<shape.height {
                for x in 0..<shape.width {
                    let from = source + (y * shape.width + x) * shape.channels
                    let to = output + (y * outputShape.width + x) * outputShape.channels
                    for c in 0..<shape.channels { to[c] += from[c] }
                }
            }
        }
        let (lower, upper) = activation.clampRange
        for index in 0..<outputShape.elementCount { output[index] = min(max(output[index], lower), upper) }
    }
}

extension PaddedAddOperation: GraphOperationBuilder {
    static let opName = "PaddedAdd"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let operands = try context.inputs(of: node, count: 2)
        let (a, b) = (operands[0].shape, operands[1].shape)
        let shape = FeatureMapShape(height: max(a.height, b.height), width: max(a.width, b.width), channels: max(a.channels, b.channels))
        let activation = try context.activation(of: node)
        let output = context.define(node.output, shape: shape)
        // Inputs of one shape need no padding: a plain Add, which a convolution can take into
        // its store (`GraphCompiler.fuseResidualAdds`).
        if a == b { return AddOperation(name: node.name, inputs: operands.map(\.id), output: output, count: shape.elementCount, activation: activation) }
        return PaddedAddOperation(name: node.name, inputs: operands.map(\.id), output: output, shapes: (a, b), outputShape: shape, activation: activation)
    }
}
