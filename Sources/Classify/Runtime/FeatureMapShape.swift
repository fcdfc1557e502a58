/// The shape of one activation in the graph: batch 1, NHWC (channels innermost).
///
/// A vector (pooled features, logits) is a 1x1 map with `channels` values.
struct FeatureMapShape: Hashable, Sendable, CustomStringConvertible {
    var height: Int
    var width: Int
    var channels: Int

    var pixelCount: Int { height * width }
    var elementCount: Int { height * width * channels }
    var description: String { "\(height)x\(width)x\(channels)" }

    static func vector(_ count: Int) -> FeatureMapShape { FeatureMapShape(height: 1, width: 1, channels: count) }
}

/// How far a convolution window reaches outside the input, per side.
struct Padding: Hashable, Sendable {
    var top: Int, left: Int, bottom: Int, right: Int

    static let none = Padding(top: 0, left: 0, bottom: 0, right: 0)

    /// TensorFlow "SAME": the output is ceil(input / stride); the total padding is split with the
    /// smaller half on top/left, which is what the EfficientNet-Lite weights were trained with.
    static func same(input: FeatureMapShape, kernel: (Int, Int), stride: (Int, Int)) -> Padding {
        func split(_ size: Int, _ k: Int, _ s: Int) -> (Int, Int) {
            let out = (size + s - 1) / s
            let total = max((out - 1) * s + k - size, 0)
            return (total / 2, total - total / 2)
        }
        let (top, bottom) = split(input.height, kernel.0, stride.0)
        let (left, right) = split(input.width, kernel.1, stride.1)
        return Padding(top: top, left: left, bottom: bottom, right: right)
    }
}

/// The activation fused into an op's store.
enum Activation: String, Sendable {
    case none
    case relu
    case relu6

    /// Values are clamped to this range; `none` is the whole float line.
    var clampRange: (lower: Float, upper: Float) {
        switch self {
        case .none: return (-.infinity, .infinity)
        case .relu: return (0, .infinity)
        case .relu6: return (0, 6)
        }
    }
}
