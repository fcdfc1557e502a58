import Foundation

/// exp(x - max) / sum over the vector; subtracting the maximum keeps exp from overflowing.
struct SoftmaxOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let count: Int

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let input = inputs[0]
        var largest = -Float.infinity
        for i in 0..<count { largest = max(largest, input[i]) }
        var sum: Float = 0
        for i in 0..<count {
            let value = Foundation.exp(input[i] - largest)
            output[i] = value
            sum += value
        }
        let scale = 1 / sum
        for i in 0..<count { output[i] *= scale }
    }
}

extension SoftmaxOperation: GraphOperationBuilder {
    static let opName = "Softmax"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let output = context.define(node.output, shape: .vector(input.shape.elementCount))
        return SoftmaxOperation(name: node.name, inputs: [input.id], output: output, count: input.shape.elementCount)
    }
}
