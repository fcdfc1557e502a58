import ClassifyTestSupport
import Testing
@testable import Classify

/// The ops the face detector added (PReLU, fused PReLU, ceil-mode MaxPool, per-pixel Softmax)
/// against the scalar reference on odd sizes and several seeds.
struct FaceOpTests {
    static func run(_ operation: any GraphOperation, input: [Float], outputCount: Int) -> [Float] {
        let source = UnsafeMutablePointer<Float>.allocate(capacity: max(input.count, 1))
        source.initialize(from: input, count: input.count)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outputCount)
        output.initialize(repeating: .nan, count: outputCount)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(operation.scratchCount, 16))
        defer { source.deallocate(); output.deallocate(); scratch.deallocate() }
        operation.run(inputs: [UnsafePointer(source)], output: output, scratch: scratch)
        return Array(UnsafeBufferPointer(start: output, count: outputCount))
    }

    @Test(arguments: [(1, 1, 1, UInt64(1)), (7, 5, 3, 2), (3, 13, 10, 3), (5, 5, 16, 4), (1, 1, 257, 5), (9, 11, 28, 6), (2, 3, 31, 7)])
    func preluMatchesTheReference(shape: (height: Int, width: Int, channels: Int, seed: UInt64)) {
        var random = SeededRandom(seed: shape.seed)
        let map = FeatureMapShape(height: shape.height, width: shape.width, channels: shape.channels)
        let input = random.floats(map.elementCount, in: -3...3)
        let slopes = random.floats(shape.channels, in: -0.5...1)
        let operation = PReLUOperation(name: "p", inputs: [0], output: 1, pixelCount: map.pixelCount, slopes: AlignedFloats(slopes))
        #expect(Self.run(operation, input: input, outputCount: map.elementCount) == ReferenceKernels.prelu(input, slopes: slopes))
    }

    /// A convolution with its PReLU fused into the store equals the two run one after the other.
    @Test(arguments: [(12, 12, 3, 10, 3, UInt64(11)), (13, 17, 10, 16, 3, 12), (7, 9, 16, 32, 3, 13), (5, 6, 48, 64, 2, 14), (3, 3, 32, 2, 1, 15)])
    func fusedPReLUMatchesConvThenPReLU(shape: (height: Int, width: Int, inChannels: Int, outChannels: Int, kernel: Int, seed: UInt64)) {
        var random = SeededRandom(seed: shape.seed)
        let map = FeatureMapShape(height: shape.height, width: shape.width, channels: shape.inChannels)
        let input = random.floats(map.elementCount)
        let weights = random.floats(shape.outChannels * shape.inChannels * shape.kernel * shape.kernel)
        let bias = random.floats(shape.outChannels)
        let slopes = random.floats(shape.outChannels, in: 0...0.5)
        let conv = Conv2DOperation(
            name: "c", input: 0, output: 1, inputShape: map, outChannels: shape.outChannels, kernel: (shape.kernel, shape.kernel),
            stride: (1, 1), padding: .none, groups: 1, activation: .none, weights: weights, bias: bias)
        let prelu = PReLUOperation(name: "p", inputs: [1], output: 2, pixelCount: conv.outputShape.pixelCount, slopes: AlignedFloats(slopes))
        let fused = FusedPReLUOperation(base: conv, prelu: prelu)
        let reference = ReferenceKernels.conv2d(
            input: input, shape: map, weights: weights, bias: bias, outChannels: shape.outChannels,
            kernel: (shape.kernel, shape.kernel), stride: (1, 1), padding: .none, groups: 1, activation: .none)
        let expected = ReferenceKernels.prelu(reference.values, slopes: slopes)
        let output = Self.run(fused, input: input, outputCount: conv.outputShape.elementCount)
        #expect(maximumAbsoluteDifference(output, expected) < 1e-4)
        #expect(fused.output == 2 && fused.inputs == [0])
    }

    @Test(arguments: [
        (11, 15, 10, 2, 2, true, UInt64(21)), (22, 22, 28, 3, 2, true, 22), (9, 9, 48, 3, 2, true, 23), (8, 8, 64, 2, 2, true, 24),
        (46, 46, 32, 3, 2, true, 25), (21, 21, 3, 3, 2, true, 26), (12, 7, 5, 3, 3, true, 27), (13, 13, 7, 3, 2, false, 28),
        (3, 3, 1, 3, 2, true, 29), (5, 4, 9, 2, 3, true, 30),
    ])
    func maxPoolMatchesTheReference(shape: (height: Int, width: Int, channels: Int, kernel: Int, stride: Int, ceil: Bool, seed: UInt64)) throws {
        var random = SeededRandom(seed: shape.seed)
        let map = FeatureMapShape(height: shape.height, width: shape.width, channels: shape.channels)
        let input = random.floats(map.elementCount, in: -5...5)
        let reference = ReferenceKernels.maxPool(input, shape: map, kernel: (shape.kernel, shape.kernel), stride: (shape.stride, shape.stride), ceilMode: shape.ceil)
        let out = FeatureMapShape(
            height: MaxPoolOperation.outputSize(shape.height, kernel: shape.kernel, stride: shape.stride, ceilMode: shape.ceil),
            width: MaxPoolOperation.outputSize(shape.width, kernel: shape.kernel, stride: shape.stride, ceilMode: shape.ceil),
            channels: shape.channels)
        #expect(out == reference.shape)
        let operation = MaxPoolOperation(
            name: "m", inputs: [0], output: 1, inputShape: map, outputShape: out,
            kernel: (shape.kernel, shape.kernel), stride: (shape.stride, shape.stride))
        #expect(Self.run(operation, input: input, outputCount: out.elementCount) == reference.values)
    }

    /// PyTorch's ceil-mode sizes for the MTCNN layers: 10 -> 5 (k2 s2), 22 -> 11 and 9 -> 4 (k3 s2), 46 -> 23, 21 -> 10, 8 -> 4.
    @Test func ceilModeSizesAreTorchs() {
        #expect(MaxPoolOperation.outputSize(10, kernel: 2, stride: 2, ceilMode: true) == 5)
        #expect(MaxPoolOperation.outputSize(11, kernel: 2, stride: 2, ceilMode: true) == 6)
        #expect(MaxPoolOperation.outputSize(22, kernel: 3, stride: 2, ceilMode: true) == 11)
        #expect(MaxPoolOperation.outputSize(9, kernel: 3, stride: 2, ceilMode: true) == 4)
        #expect(MaxPoolOperation.outputSize(46, kernel: 3, stride: 2, ceilMode: true) == 23)
        #expect(MaxPoolOperation.outputSize(21, kernel: 3, stride: 2, ceilMode: true) == 10)
        #expect(MaxPoolOperation.outputSize(8, kernel: 2, stride: 2, ceilMode: true) == 4)
        #expect(MaxPoolOperation.outputSize(9, kernel: 3, stride: 2, ceilMode: false) == 4)
        #expect(MaxPoolOperation.outputSize(10, kernel: 3, stride: 2, ceilMode: false) == 4)
        #expect(MaxPoolOperation.outputSize(10, kernel: 3, stride: 2, ceilMode: true) == 5)
    }

    @Test(arguments: [(1, 2, UInt64(41)), (7, 2, 42), (13, 3, 43), (1, 1000, 44), (5, 1, 45)])
    func softmaxPerPixelMatchesTheReference(shape: (pixels: Int, channels: Int, seed: UInt64)) {
        var random = SeededRandom(seed: shape.seed)
        let input = random.floats(shape.pixels * shape.channels, in: -20...20)
        let operation = SoftmaxOperation(name: "s", inputs: [0], output: 1, pixelCount: shape.pixels, channels: shape.channels)
        let output = Self.run(operation, input: input, outputCount: input.count)
        #expect(maximumAbsoluteDifference(output, ReferenceKernels.softmax(input, channels: shape.channels)) < 1e-6)
    }
}
