import CClassifyKernels

/// Bilinear resizing of an NHWC map to `outputShape`'s height and width, with TensorFlow's
/// coordinate conventions (`tf.image.resize` / TFLite `RESIZE_BILINEAR`), which BlazeFace's
/// feature pyramid uses to upsample by 2:
/// - `halfPixelCenters`: output pixel `d` samples the input at `(d + 0.5) * in / out - 0.5`;
/// - `alignCorners`: at `d * (in - 1) / (out - 1)`, so the corner pixels map onto each other;
/// - neither: at `d * in / out`.
/// The two neighbours are `floor(s)` and `floor(s) + 1`, both clamped into the input, weighted by
/// `s - floor(s)` (a sample left of the first pixel therefore takes the first pixel's value).
///
/// Per output row and column the source indices and weights are computed once, at load; the C
/// kernel (`cls_resize_bilinear`) resizes each source row along x once, then blends rows along y,
/// vectorized over the contiguous channels. An `Add` reading only the resized map runs in the
/// same pass (`fusingResidual`, as BlazeFace's feature pyramid adds each upsampled map to a
/// finer one).
struct ResizeBilinearOperation: GraphOperation {
    /// Where an output row (or column) reads: two source indices and the weight of the second.
    struct Taps: Sendable {
        var lower: [Int32]
        var upper: [Int32]
        var fraction: [Float]
    }

    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let rows: Taps
    let columns: Taps
    /// The activation of a fused `Add` (whose other operand is `inputs[1]`), nil without one.
    let residualActivation: Activation?

    init(name: String, input: ValueID, output: ValueID, inputShape: FeatureMapShape, height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        self.name = name
        inputs = [input]
        self.output = output
        self.inputShape = inputShape
        outputShape = FeatureMapShape(height: height, width: width, channels: inputShape.channels)
        rows = Self.taps(input: inputShape.height, output: height, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        columns = Self.taps(input: inputShape.width, output: width, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        residualActivation = nil
    }

    private init(fusing base: ResizeBilinearOperation, residual: ValueID, activation: Activation, output: ValueID) {
        name = base.name
        inputs = [base.inputs[0], residual]
        self.output = output
        inputShape = base.inputShape
        outputShape = base.outputShape
        rows = base.rows
        columns = base.columns
        residualActivation = activation
    }

    /// This resize with an `Add` of `value` (clamped by `activation`) done in its store, writing
    /// `output`; nil when it already carries one.
    func fusingResidual(_ value: ValueID, activation: Activation, output: ValueID) -> ResizeBilinearOperation? {
        guard residualActivation == nil else { return nil }
        return ResizeBilinearOperation(fusing: self, residual: value, activation: activation, output: output)
    }

    var kindDescription: String { "ResizeBilinear" + (residualActivation == nil ? "" : " +add") }

    var scratchCount: Int { cls_resize_bilinear_scratch(Int32(outputShape.width), Int32(outputShape.channels)) }

    /// The sampling position of each output index along one axis, as TensorFlow computes it
    /// (in float: the scale is `Float`, like TFLite's kernel, so positions match it bit for bit).
    static func sourcePosition(_ index: Int, input: Int, output: Int, alignCorners: Bool, halfPixelCenters: Bool) -> Float {
        let scale: Float = alignCorners && output > 1 ? Float(input - 1) / Float(output - 1) : Float(input) / Float(output)
        return halfPixelCenters ? (Float(index) + 0.5) * scale - 0.5 : Float(index) * scale
    }

    static func taps(input: Int, output: Int, alignCorners: Bool, halfPixelCenters: Bool) -> Taps {
        var taps = Taps(lower: [], upper: [], fraction: [])
        for index in 0..<output {
            let position = sourcePosition(index, input: input, output: output, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
            let floor = position.rounded(.down)
            let below = Int(floor)
            taps.lower.append(Int32(min(max(below, 0), input - 1)))
            taps.upper.append(Int32(min(max(below + 1, 0), input - 1)))
            taps.fraction.append(position - floor)
        }
        return taps
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let (lower, upper) = residualActivation?.clampRange ?? (-.infinity, .infinity)
        cls_resize_bilinear(
            inputs[0], Int32(inputShape.width), Int32(inputShape.channels), Int32(outputShape.height), Int32(outputShape.width),
            rows.lower, rows.upper, rows.fraction, columns.lower, columns.upper, columns.fraction,
            residualActivation == nil ? nil : inputs[1], lower, upper, scratch, output)
    }
}

extension ResizeBilinearOperation: GraphOperationBuilder {
    static let opName = "ResizeBilinear"
    /// A larger output is a broken file, not a network.
    static let maximumSide = 1 << 14

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let size: [Int]
        switch (node.size, node.scale) {
        case (let given?, nil):
            size = given
        case (nil, let scale?):
            guard scale.count == 2, scale.allSatisfy({ (1...64).contains($0) }) else {
                throw context.error(node, "scale must be two numbers in 1...64 (height, width), not \(scale)")
            }
            size = [input.shape.height * scale[0], input.shape.width * scale[1]]
        default:
            throw context.error(node, "needs either size or scale")
        }
        guard size.count == 2, size.allSatisfy({ (1...maximumSide).contains($0) }) else {
            throw context.error(node, "size must be two numbers in 1...\(maximumSide) (height, width), not \(size)")
        }
        let alignCorners = node.alignCorners ?? false, halfPixelCenters = node.halfPixelCenters ?? false
        guard !(alignCorners && halfPixelCenters) else { throw context.error(node, "alignCorners and halfPixelCenters cannot both be set") }
        let output = context.define(node.output, shape: FeatureMapShape(height: size[0], width: size[1], channels: input.shape.channels))
        return ResizeBilinearOperation(
            name: node.name, input: input.id, output: output, inputShape: input.shape, height: size[0], width: size[1],
            alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
    }
}
