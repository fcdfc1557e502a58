/// Rearranges channels into space, TensorFlow's `depth_to_space` on NHWC (TFLite
/// `DEPTH_TO_SPACE`): with block size b, input pixel (y, x) with C * b * b channels becomes the
/// b x b block of output pixels (y * b + i, x * b + j), whose channel c is input channel
/// `(i * b + j) * C + c`. BlazeFace's heads use it to turn a half-resolution map of 4 (or 64)
/// channels into one score (or 16 box values) per anchor.
///
/// A pure copy: each output row of a block is one contiguous run of `b * C` input values.
struct DepthToSpaceOperation: GraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let blockSize: Int

    var outputShape: FeatureMapShape {
        FeatureMapShape(height: inputShape.height * blockSize, width: inputShape.width * blockSize, channels: inputShape.channels / (blockSize * blockSize))
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let source = inputs[0], b = blockSize, out = outputShape
        // Input pixel (y, x), block row i: channels i*b*C ..< (i+1)*b*C land at output pixels
        // (y*b + i, x*b ..< x*b + b), which are contiguous in the output row.
        let run = b * out.channels
        for y in 0..<inputShape.height {
            for i in 0..<b {
                let target = output + ((y * b + i) * out.width) * out.channels
                for x in 0..<inputShape.width {
                    (target + x * run).update(from: source + (y * inputShape.width + x) * inputShape.channels + i * run, count: run)
                }
            }
        }
    }
}

extension DepthToSpaceOperation: GraphOperationBuilder {
    static let opName = "DepthToSpace"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let blockSize = try context.required(node.blockSize, "blockSize", of: node)
        guard (1...64).contains(blockSize), input.shape.channels % (blockSize * blockSize) == 0 else {
            throw context.error(node, "block size \(blockSize) does not divide the \(input.shape.channels) channels of '\(node.inputs[0])' into b*b groups")
        }
        let operation = DepthToSpaceOperation(name: node.name, inputs: [input.id], output: -1, inputShape: input.shape, blockSize: blockSize)
        let output = context.define(node.output, shape: operation.outputShape)
        return DepthToSpaceOperation(name: node.name, inputs: [input.id], output: output, inputShape: input.shape, blockSize: blockSize)
    }
}
