/// Mean over each window of an NHWC map, no padding (`"valid"`): dlib's `avg_pool`, the shortcut
/// of the face recognition ResNet's downsampling blocks. Output `floor((n - k) / s) + 1` per axis.
struct AveragePoolOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let kernel: (height: Int, width: Int)
    let stride: (height: Int, width: Int)

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let channels = inputShape.channels, scale = 1 / Float(kernel.height * kernel.width)
        for y in 0..<outputShape.height {
            for x in 0..<outputShape.width {
                let target = output + (y * outputShape.width + x) * channels
                target.update(repeating: 0, count: channels)
                for dy in 0..<kernel.height {
                    for dx in 0..<kernel.width {
                        let source = inputs[0] + ((y * stride.height + dy) * inputShape.width + x * stride.width + dx) * channels
                        for c in 0..<channels { target[c] += source[c] }
                    }
                }
                for c in 0..<channels { target[c] *= scale }
            }
        }
    }
}

extension AveragePoolOperation: GraphOperationBuilder {
    static let opName = "AveragePool"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let kernel = try context.required(node.kernel, "kernel", of: node)
        let stride = try context.required(node.stride, "stride", of: node)
        guard kernel.count == 2, stride.count == 2, kernel.allSatisfy({ $0 >= 1 }), stride.allSatisfy({ $0 >= 1 }) else {
            throw context.error(node, "kernel and stride must be two positive numbers")
        }
        guard (node.padding ?? "valid") == "valid" else { throw context.error(node, "padding must be \"valid\"") }
        guard input.shape.height >= kernel[0], input.shape.width >= kernel[1] else {
            throw context.error(node, "a \(kernel[0])x\(kernel[1]) window does not fit in \(input.shape)")
        }
        let shape = FeatureMapShape(
            height: (input.shape.height - kernel[0]) / stride[0] + 1, width: (input.shape.width - kernel[1]) / stride[1] + 1,
            channels: input.shape.channels)
        let output = context.define(node.output, shape: shape)
        return AveragePoolOperation(
            name: node.name, inputs: [input.id], output: output, inputShape: input.shape, outputShape: shape,
            kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]))
    }
}
