import CClassifyKernels

/// Element-wise sum of two maps of the same shape (the residual connection), with an optional
/// fused activation.
struct AddOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let count: Int
    let activation: Activation

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (lower, upper) = activation.clampRange
        cls_add_activation(inputs[0], inputs[1], output, count, lower, upper)
    }
}

extension AddOperation: GraphOperationBuilder {
    static let opName = "Add"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let operands = try context.inputs(of: node, count: 2)
        guard operands[0].shape == operands[1].shape else {
            throw context.error(node, "adds \(operands[0].shape) to \(operands[1].shape)")
        }
        let activation = try context.activation(of: node)
        let output = context.define(node.output, shape: operands[0].shape)
        return AddOperation(name: node.name, inputs: operands.map(\.id), output: output, count: operands[0].shape.elementCount, activation: activation)
    }
}
