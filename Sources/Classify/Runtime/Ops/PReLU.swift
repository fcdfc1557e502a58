/// Parametric ReLU with one slope per channel over an NHWC map (or a vector):
/// `y = x` where `x >= 0`, else `slope[c] * x` (PyTorch's `nn.PReLU(channels)`).
///
/// The graph compiler folds a PReLU into the op that produces its input (see `FusedPReLUOperation`),
/// so in practice the slopes are applied right after that op's store, while the output is hot.
struct PReLUOperation: BatchedGraphOperation {
    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let pixelCount: Int
    let slopes: AlignedFloats

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        run(batch: 1, inputs: inputs, output: output, scratch: scratch)
    }

    /// A batch's items are more pixels.
    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        Self.apply(slopes.base, channels: slopes.count, pixels: pixelCount * batch, input: inputs[0], output: output)
    }

    /// The kernel: SIMD over channels in groups of 8 with a scalar tail. `output` may equal `input`.
    static func apply(_ slopes: UnsafePointer<Float>, channels: Int, pixels: Int, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let vectorChannels = channels / 8 * 8
        for pixel in 0..<pixels {
            let row = pixel * channels
            var c = 0
            while c < vectorChannels {
                let x = UnsafeRawPointer(input + row + c).loadUnaligned(as: SIMD8<Float>.self)
                let a = UnsafeRawPointer(slopes + c).loadUnaligned(as: SIMD8<Float>.self)
                let y = x.replacing(with: x * a, where: x .< 0)
                UnsafeMutableRawPointer(output + row + c).storeBytes(of: y, as: SIMD8<Float>.self)
                c += 8
            }
            while c < channels {
                let x = input[row + c]
                output[row + c] = x < 0 ? x * slopes[c] : x
                c += 1
            }
        }
    }
}

extension PReLUOperation: GraphOperationBuilder {
    static let opName = "PReLU"

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let slopes = try context.tensor(node.weight, "weight", shape: [input.shape.channels], of: node)
        let output = context.define(node.output, shape: input.shape)
        return PReLUOperation(name: node.name, inputs: [input.id], output: output, pixelCount: input.shape.pixelCount, slopes: AlignedFloats(slopes))
    }
}

/// An op followed by the PReLU that is the only reader of its output, run as one: the base op
/// writes the PReLU's output buffer and the slopes are applied there in place, so the
/// intermediate map never exists (see `GraphCompiler.fusePReLUs`). Batched when its base is.
struct FusedPReLUOperation<Base: GraphOperation>: PReLUFusedOperation {
    let base: Base
    let prelu: PReLUOperation

    var name: String { base.name + "+" + prelu.name }
    var inputs: [ValueID] { base.inputs }
    var output: ValueID { prelu.output }
    var scratchCount: Int { base.scratchCount }
    var kindDescription: String { base.kindDescription + " +prelu" }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        base.run(inputs: inputs, output: output, scratch: scratch)
        PReLUOperation.apply(prelu.slopes.base, channels: prelu.slopes.count, pixels: prelu.pixelCount, input: output, output: output)
    }
}

extension FusedPReLUOperation: BatchedGraphOperation where Base: BatchedGraphOperation {
    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        base.run(batch: batch, inputs: inputs, output: output, scratch: scratch)
        PReLUOperation.apply(prelu.slopes.base, channels: prelu.slopes.count, pixels: prelu.pixelCount * batch, input: output, output: output)
    }
}

/// An op that already applies a PReLU after its own work (so a second one is not fused into it).
protocol PReLUFusedOperation: GraphOperation {}
