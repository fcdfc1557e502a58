/// Bilinear resizing of an NHWC map to `outputShape`'s height and width, with TensorFlow's
/// coordinate conventions (`tf.image.resize` / TFLite `RESIZE_BILINEAR`), which BlazeFace's
/// feature pyramid uses to upsample by 2:
/// - `halfPixelCenters`: output pixel `d` samples the input at `(d + 0.5) * in / out - 0.5`;
/// - `alignCorners`: at `d * (in - 1) / (out - 1)`, so the corner pixels map onto each other;
/// - neither: at `d * in / out`.
/// The two neighbours are `floor(s)` and `floor(s) + 1`, both clamped into the input, weighted by
/// `s - floor(s)` (a sample left of the first pixel therefore takes the first pixel's value).
///
/// Per output row and column the source indices and weights are computed once, at load; the
/// inner loop runs over channels (contiguous in NHWC), which the optimizer vectorizes.
struct ResizeBilinearOperation: GraphOperation {
    /// Where an output row (or column) reads: two source indices and the weight of the second.
    struct Taps: Sendable {
        var lower: [Int]
        var upper: [Int]
        var fraction: [Float]
    }

    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let rows: Taps
    let columns: Taps

    init(name: String, input: ValueID, output: ValueID, inputShape: FeatureMapShape, height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool) {
        self.name = name
        inputs = [input]
        self.output = output
        self.inputShape = inputShape
        outputShape = FeatureMapShape(height: height, width: width, channels: inputShape.channels)
        rows = Self.taps(input: inputShape.height, output: height, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
        columns = Self.taps(input: inputShape.width, output: width, alignCorners: alignCorners, halfPixelCenters: halfPixelCenters)
    }

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
            taps.lower.append(min(max(below, 0), input - 1))
            taps.upper.append(min(max(below + 1, 0), input - 1))
            taps.fraction.append(position - floor)
        }
        return taps
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let source = inputs[0], channels = inputShape.channels, inRow = inputShape.width * channels
        for y in 0..<outputShape.height {
            let top = source + rows.lower[y] * inRow, bottom = source + rows.upper[y] * inRow
            let dy = rows.fraction[y]
            for x in 0..<outputShape.width {
                let left = columns.lower[x] * channels, right = columns.upper[x] * channels
                let dx = columns.fraction[x]
                let target = output + (y * outputShape.width + x) * channels
                for c in 0..<channels {
                    let upper = top[left + c] + (top[right + c] - top[left + c]) * dx
                    let lower = bottom[left + c] + (bottom[right + c] - bottom[left + c]) * dx
                    target[c] = upper + (lower - upper) * dy
                }
            }
        }
    }
}

extension ResizeBilinearOperation: GraphOperationBuilder {
    static let opName = "ResizeBilinear"
    /// A larger output is a broken file, not a network.
    static let maximumSide = 1 << 14

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let size = try context.required(node.size, "size", of: node)
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
