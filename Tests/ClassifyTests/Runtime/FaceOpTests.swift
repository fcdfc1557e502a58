import ClassifyTestSupport
import Testing
@testable import Classify

/// The ops the face detector added (PReLU, fused PReLU, ceil-mode MaxPool, per-pixel Softmax)
/// against the scalar reference on odd sizes and several seeds.
struct FaceOpTests {
    static func run(_ operation: any GraphOperation, input: [Float], outputCount: Int) -> [Float] {
        run(operation, inputs: [input], outputCount: outputCount)
    }

    /// Runs `operation` alone on `inputs` (one array per input value) into a NaN-filled output.
    static func run(_ operation: any GraphOperation, inputs: [[Float]], outputCount: Int) -> [Float] {
        let sources = inputs.map { input in
            let source = UnsafeMutablePointer<Float>.allocate(capacity: max(input.count, 1))
            source.initialize(from: input, count: input.count)
            return source
        }
        let output = UnsafeMutablePointer<Float>.allocate(capacity: outputCount)
        output.initialize(repeating: .nan, count: outputCount)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: max(operation.scratchCount, 16))
        defer { sources.forEach { $0.deallocate() }; output.deallocate(); scratch.deallocate() }
        operation.run(inputs: sources.map { UnsafePointer($0) }, output: output, scratch: scratch)
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

    struct FusedCase: CustomTestStringConvertible, Sendable {
        var height: Int, width: Int, inChannels: Int, outChannels: Int, kernel: Int, seed: UInt64
        var testDescription: String { "\(height)x\(width)x\(inChannels)->\(outChannels) k\(kernel) seed \(seed)" }
    }

    /// P-Net's, R-Net's and O-Net's shapes, maps narrower than one tile, widths that leave a
    /// partial last tile, and a pointwise head (which fuses as a separate PReLU pass).
    static let fusedCases: [FusedCase] = [
        .init(height: 12, width: 12, inChannels: 3, outChannels: 10, kernel: 3, seed: 11),
        .init(height: 13, width: 17, inChannels: 10, outChannels: 16, kernel: 3, seed: 12),
        .init(height: 7, width: 9, inChannels: 16, outChannels: 32, kernel: 3, seed: 13),
        .init(height: 5, width: 6, inChannels: 48, outChannels: 64, kernel: 2, seed: 14),
        .init(height: 3, width: 3, inChannels: 32, outChannels: 2, kernel: 1, seed: 15),
        .init(height: 9, width: 45, inChannels: 10, outChannels: 16, kernel: 3, seed: 16),
        .init(height: 6, width: 41, inChannels: 16, outChannels: 32, kernel: 3, seed: 17),
        .init(height: 24, width: 24, inChannels: 3, outChannels: 28, kernel: 3, seed: 18),
        .init(height: 11, width: 11, inChannels: 28, outChannels: 48, kernel: 3, seed: 19),
        .init(height: 10, width: 10, inChannels: 32, outChannels: 64, kernel: 3, seed: 20),
        .init(height: 4, width: 19, inChannels: 7, outChannels: 11, kernel: 3, seed: 21),
        .init(height: 6, width: 12, inChannels: 10, outChannels: 16, kernel: 3, seed: 22),
        .init(height: 4, width: 4, inChannels: 48, outChannels: 64, kernel: 2, seed: 23),
    ]

    /// A convolution with its PReLU fused (into the direct kernel's store, or as a pass over the
    /// output of an im2col or pointwise one) equals the two run one after the other, on every kernel path.
    @Test(arguments: fusedCases, KernelPaths.withThreads)
    func fusedPReLUMatchesConvThenPReLU(_ c: FusedCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let map = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(map.elementCount)
        let weights = random.floats(c.outChannels * c.inChannels * c.kernel * c.kernel)
        let bias = random.floats(c.outChannels)
        let slopes = random.floats(c.outChannels, in: -0.5...0.5)
        let conv = Conv2DOperation(
            name: "c", input: 0, output: 1, inputShape: map, outChannels: c.outChannels, kernel: (c.kernel, c.kernel),
            stride: (1, 1), padding: .none, groups: 1, activation: .none, weights: weights, bias: bias)
        let prelu = PReLUOperation(name: "p", inputs: [1], output: 2, pixelCount: conv.outputShape.pixelCount, slopes: AlignedFloats(slopes))
        let fused = GraphCompiler.fusePReLUs([conv, prelu], valueCount: 3, keep: [])
        #expect(fused.count == 1)
        // A direct convolution applies the slopes in its store; one on im2col (from 32 inputs) or
        // pointwise is followed by the slopes' own pass over its output.
        #expect((fused[0] is Conv2DOperation) == (conv.strategy == .direct), "\(conv.strategy): \(type(of: fused[0]))")
        let reference = ReferenceKernels.conv2d(
            input: input, shape: map, weights: weights, bias: bias, outChannels: c.outChannels,
            kernel: (c.kernel, c.kernel), stride: (1, 1), padding: .none, groups: 1, activation: .none)
        let expected = ReferenceKernels.prelu(reference.values, slopes: slopes)
        var output: [Float] = []
        try KernelPaths.with(path.kernels, threads: path.threads) {
            output = Self.run(fused[0], input: input, outputCount: conv.outputShape.elementCount)
        }
        #expect(maximumAbsoluteDifference(output, expected) < 1e-4)
        #expect(fused[0].output == 2 && fused[0].inputs == [0])
    }

    @Test(arguments: [
        (11, 15, 10, 2, 2, true, UInt64(21)), (22, 22, 28, 3, 2, true, 22), (9, 9, 48, 3, 2, true, 23), (8, 8, 64, 2, 2, true, 24),
        (46, 46, 32, 3, 2, true, 25), (21, 21, 3, 3, 2, true, 26), (12, 7, 5, 3, 3, true, 27), (13, 13, 7, 3, 2, false, 28),
        (3, 3, 1, 3, 2, true, 29), (5, 4, 9, 2, 3, true, 30),
    ])
    func maxPoolMatchesTheReference(shape: (height: Int, width: Int, channels: Int, kernel: Int, stride: Int, ceil: Bool, seed: UInt64)) throws {
        for path in KernelPath.allCases where path <= KernelPath.best {
            try KernelPaths.with(path) { try maxPool(shape: shape) }
        }
    }

    private func maxPool(shape: (height: Int, width: Int, channels: Int, kernel: Int, stride: Int, ceil: Bool, seed: UInt64)) throws {
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
