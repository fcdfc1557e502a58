import Foundation

/// exp(x - max) / sum over the channels of each pixel (the last axis); a vector is a single
/// pixel. Subtracting the maximum keeps exp from overflowing.
struct SoftmaxOperation: BatchedGraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let pixelCount: Int
    let channels: Int

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        run(batch: 1, inputs: inputs, output: output, scratch: scratch)
    }

    /// A batch's items are more pixels.
    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        for pixel in 0..<(pixelCount * batch) {
            let input = inputs[0] + pixel * channels, output = output + pixel * channels
            var largest = -Float.infinity
            for i in 0..<channels { largest = max(largest, input[i]) }
            var sum: Float = 0
            for i in 0..<channels {
                let value = Foundation.exp(input[i] - largest)
                output[i] = value
                sum += value
            }
            let scale = 1 / sum
            for i in 0..<channels { output[i] *= scale }
        }
    }
}

extension SoftmaxOperation: GraphOperationBuilder {
    static let opName = "Softmax"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let output = context.define(node.output, shape: input.shape)
        return SoftmaxOperation(name: node.name, inputs: [input.id], output: output, pixelCount: input.shape.pixelCount, channels: input.shape.channels)
    }
}
