/// Mean over all pixels of an NHWC map: HxWxC -> C.
struct GlobalAveragePoolOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let channels = inputShape.channels, pixels = inputShape.pixelCount
        output.update(repeating: 0, count: channels)
        for p in 0..<pixels {
            let row = inputs[0] + p * channels
            for c in 0..<channels { output[c] += row[c] }
        }
        let scale = 1 / Float(pixels)
        for c in 0..<channels { output[c] *= scale }
    }
}

extension GlobalAveragePoolOperation: GraphOperationBuilder {
    static let opName = "GlobalAveragePool"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let output = context.define(node.output, shape: .vector(input.shape.channels))
        return GlobalAveragePoolOperation(name: node.name, inputs: [input.id], output: output, inputShape: input.shape)
    }
}
