import CClassifyKernels

/// Max pooling over NHWC maps without padding, in PyTorch's ceil mode when `ceilMode` is set:
/// the output has `ceil((n - k) / s) + 1` positions per axis (less one if the last window would
/// start past the input), and windows hanging over the bottom/right edge take the maximum of the
/// values they do cover. Without ceil mode: `floor((n - k) / s) + 1`.
struct MaxPoolOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let kernel: (height: Int, width: Int)
    let stride: (height: Int, width: Int)

    static func outputSize(_ size: Int, kernel: Int, stride: Int, ceilMode: Bool) -> Int {
        guard size >= kernel else { return 0 }
        if !ceilMode { return (size - kernel) / stride + 1 }
        var out = (size - kernel + stride - 1) / stride + 1
        if (out - 1) * stride >= size { out -= 1 }
        return out
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        cls_max_pool(
            inputs[0], Int32(inputShape.height), Int32(inputShape.width), Int32(inputShape.channels),
            Int32(kernel.height), Int32(kernel.width), Int32(stride.height), Int32(stride.width),
            output, Int32(outputShape.height), Int32(outputShape.width))
    }
}

extension MaxPoolOperation: GraphOperationBuilder {
    static let opName = "MaxPool"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let kernel = try context.required(node.kernel, "kernel", of: node)
        let stride = node.stride ?? kernel
        guard kernel.count == 2, stride.count == 2, kernel.allSatisfy({ $0 >= 1 }), stride.allSatisfy({ $0 >= 1 }) else {
            throw context.error(node, "kernel and stride must be two positive numbers")
        }
        guard (node.padding ?? "valid") == "valid" else { throw context.error(node, "padding '\(node.padding ?? "")' is not supported (valid only)") }
        guard input.shape.height >= kernel[0], input.shape.width >= kernel[1] else {
            throw context.error(node, "kernel \(kernel) is larger than the input \(input.shape)")
        }
        let ceilMode = node.ceilMode ?? false
        let shape = FeatureMapShape(
            height: outputSize(input.shape.height, kernel: kernel[0], stride: stride[0], ceilMode: ceilMode),
            width: outputSize(input.shape.width, kernel: kernel[1], stride: stride[1], ceilMode: ceilMode),
            channels: input.shape.channels)
        let output = context.define(node.output, shape: shape)
        return MaxPoolOperation(
            name: node.name, inputs: [input.id], output: output, inputShape: input.shape, outputShape: shape,
            kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]))
    }
}
