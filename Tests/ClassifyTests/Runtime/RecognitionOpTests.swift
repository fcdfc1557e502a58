import ClassifyTestSupport
import Testing
@testable import Classify

/// The two ops the face recognition ResNet adds, against plain nested-loop references on odd sizes.
struct RecognitionOpTests {
    static func value(_ data: [Float], _ shape: FeatureMapShape, _ y: Int, _ x: Int, _ c: Int) -> Float {
        y < shape.height && x < shape.width && c < shape.channels ? data[(y * shape.width + x) * shape.channels + c] : 0
    }

    @Test(arguments: [(7, 5, 3, 2, 2, 2, 2), (9, 9, 1, 3, 3, 2, 2), (4, 6, 5, 2, 3, 1, 2), (2, 2, 17, 2, 2, 2, 2)])
    func averagePoolMatchesTheReference(h: Int, w: Int, c: Int, kh: Int, kw: Int, sh: Int, sw: Int) {
        var random = SeededRandom(seed: UInt64(h * 100 + w * 10 + c))
        let inShape = FeatureMapShape(height: h, width: w, channels: c)
        let outShape = FeatureMapShape(height: (h - kh) / sh + 1, width: (w - kw) / sw + 1, channels: c)
        let input = random.floats(inShape.elementCount)
        let op = AveragePoolOperation(name: "pool", inputs: [0], output: 1, inputShape: inShape, outputShape: outShape,
                                      kernel: (kh, kw), stride: (sh, sw))
        var output = [Float](repeating: .nan, count: outShape.elementCount)
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { op.run(inputs: [source.baseAddress!], output: $0.baseAddress!, scratch: $0.baseAddress!) }
        }
        for y in 0..<outShape.height {
            for x in 0..<outShape.width {
                for ch in 0..<c {
                    var sum: Float = 0
                    for dy in 0..<kh { for dx in 0..<kw { sum += Self.value(input, inShape, y * sh + dy, x * sw + dx, ch) } }
                    #expect(abs(output[(y * outShape.width + x) * c + ch] - sum / Float(kh * kw)) < 1e-6)
                }
            }
        }
    }

    @Test(arguments: [((3, 3, 8), (4, 4, 5)), ((5, 5, 7), (5, 5, 7)), ((1, 1, 3), (2, 2, 1))])
    func paddedAddMatchesTheReference(a: (Int, Int, Int), b: (Int, Int, Int)) {
        var random = SeededRandom(seed: UInt64(a.0 * 7 + b.2))
        let shapeA = FeatureMapShape(height: a.0, width: a.1, channels: a.2), shapeB = FeatureMapShape(height: b.0, width: b.1, channels: b.2)
        let out = FeatureMapShape(height: max(a.0, b.0), width: max(a.1, b.1), channels: max(a.2, b.2))
        let first = random.floats(shapeA.elementCount), second = random.floats(shapeB.elementCount)
        let op = PaddedAddOperation(name: "add", inputs: [0, 1], output: 2, shapes: (shapeA, shapeB), outputShape: out, activation: .relu)
        var output = [Float](repeating: .nan, count: out.elementCount)
        first.withUnsafeBufferPointer { p in
            second.withUnsafeBufferPointer { q in
                output.withUnsafeMutableBufferPointer { op.run(inputs: [p.baseAddress!, q.baseAddress!], output: $0.baseAddress!, scratch: $0.baseAddress!) }
            }
        }
        for y in 0..<out.height {
            for x in 0..<out.width {
                for c in 0..<out.channels {
                    let expected = max(Self.value(first, shapeA, y, x, c) + Self.value(second, shapeB, y, x, c), 0)
                    #expect(output[(y * out.width + x) * out.channels + c] == expected)
                }
            }
        }
    }
}
