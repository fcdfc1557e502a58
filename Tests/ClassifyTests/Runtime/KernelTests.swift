import ClassifyTestSupport
import CClassifyKernels
import Testing
@testable import Classify

/// Every fast kernel against the scalar reference, on awkward shapes (odd sizes so tail loops
/// run, stride 2, 5x5, channel counts that are not multiples of 8 or 16), on every kernel path:
/// AVX-512, AVX2+FMA and portable. A path this CPU lacks is skipped, naming what is missing.
@Suite(.serialized)
struct KernelTests {
    struct ConvCase: CustomTestStringConvertible, Sendable {
        var height: Int, width: Int, inChannels: Int, outChannels: Int, kernel: Int, stride: Int, groups: Int, same: Bool
        var activation: Activation
        var seed: UInt64
        /// Explicit padding [top, left, bottom, right] (BlazeFace's), overriding `same`.
        var pads: [Int]? = nil
        var testDescription: String {
            let padding = pads.map { "pads \($0)" } ?? (same ? "same" : "valid")
            return "\(height)x\(width)x\(inChannels)->\(outChannels) k\(kernel) s\(stride) g\(groups) \(padding) \(activation) seed \(seed)"
        }
        var padding: Padding {
            if let pads { return Padding(top: pads[0], left: pads[1], bottom: pads[2], right: pads[3]) }
            let shape = FeatureMapShape(height: height, width: width, channels: inChannels)
            return same ? .same(input: shape, kernel: (kernel, kernel), stride: (stride, stride)) : .none
        }
    }

    static let convolutionCases: [ConvCase] = [
        // pointwise (packed GEMM): M, K and N tails (M % 6, K odd, N % 16 in 7, 19, 24, 40, 1000)
        .init(height: 7, width: 13, inChannels: 13, outChannels: 7, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 1),
        .init(height: 13, width: 7, inChannels: 127, outChannels: 19, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 2),
        .init(height: 1, width: 7, inChannels: 7, outChannels: 40, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 12),
        .init(height: 7, width: 7, inChannels: 1152, outChannels: 24, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 13),
        .init(height: 1, width: 13, inChannels: 16, outChannels: 1000, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu, seed: 14),
        .init(height: 13, width: 13, inChannels: 24, outChannels: 144, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 15),
        // AVX-512 tiles: groups of 1-4 panels of 16 with a partial last one, 12-row tiles for 1-2 panels, one row
        .init(height: 1, width: 11, inChannels: 5, outChannels: 24, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 61),
        .init(height: 3, width: 5, inChannels: 33, outChannels: 88, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 62),
        .init(height: 7, width: 7, inChannels: 40, outChannels: 100, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 63),
        .init(height: 1, width: 1, inChannels: 1280, outChannels: 1000, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 64),
        // AVX-512 narrow tiles (zmm panels and a ymm tail of 1-8 columns): 12, 8 and 6 rows, rows left over
        .init(height: 13, width: 11, inChannels: 37, outChannels: 24, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 70),
        .init(height: 9, width: 13, inChannels: 144, outChannels: 40, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 71),
        .init(height: 7, width: 9, inChannels: 29, outChannels: 56, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu, seed: 72),
        .init(height: 5, width: 7, inChannels: 16, outChannels: 17, kernel: 1, stride: 1, groups: 1, same: true, activation: .none, seed: 73),
        .init(height: 11, width: 3, inChannels: 21, outChannels: 33, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 74),
        .init(height: 3, width: 11, inChannels: 9, outChannels: 49, kernel: 1, stride: 1, groups: 1, same: true, activation: .relu6, seed: 75),
        // depthwise 3x3 and 5x5, stride 1 and 2; channels 29 = 16 + 8 + 5 exercise every tile width
        .init(height: 7, width: 7, inChannels: 13, outChannels: 13, kernel: 3, stride: 1, groups: 13, same: true, activation: .relu6, seed: 3),
        .init(height: 13, width: 127, inChannels: 7, outChannels: 7, kernel: 3, stride: 2, groups: 7, same: true, activation: .relu6, seed: 4),
        .init(height: 127, width: 13, inChannels: 9, outChannels: 9, kernel: 5, stride: 2, groups: 9, same: true, activation: .none, seed: 5),
        .init(height: 13, width: 13, inChannels: 33, outChannels: 33, kernel: 5, stride: 1, groups: 33, same: true, activation: .relu, seed: 6),
        .init(height: 8, width: 8, inChannels: 24, outChannels: 24, kernel: 5, stride: 2, groups: 24, same: true, activation: .relu6, seed: 7),
        .init(height: 7, width: 7, inChannels: 29, outChannels: 29, kernel: 5, stride: 1, groups: 29, same: true, activation: .relu6, seed: 16),
        .init(height: 13, width: 13, inChannels: 48, outChannels: 48, kernel: 3, stride: 1, groups: 48, same: true, activation: .relu6, seed: 17),
        .init(height: 13, width: 7, inChannels: 40, outChannels: 40, kernel: 5, stride: 2, groups: 40, same: true, activation: .none, seed: 18),
        .init(height: 9, width: 13, inChannels: 16, outChannels: 16, kernel: 3, stride: 1, groups: 16, same: false, activation: .none, seed: 19),
        .init(height: 7, width: 13, inChannels: 24, outChannels: 24, kernel: 7, stride: 1, groups: 24, same: true, activation: .relu6, seed: 20),
        // maps narrower than a 4-pixel tile; 5x5 channel groups on a wide map
        .init(height: 9, width: 3, inChannels: 20, outChannels: 20, kernel: 3, stride: 1, groups: 20, same: true, activation: .relu6, seed: 65),
        .init(height: 9, width: 127, inChannels: 40, outChannels: 40, kernel: 5, stride: 1, groups: 40, same: true, activation: .relu6, seed: 66),
        .init(height: 11, width: 5, inChannels: 17, outChannels: 17, kernel: 5, stride: 2, groups: 17, same: true, activation: .none, seed: 67),
        // fewer than 8 channels (BlazeFace's 4-channel score head, 3x3/2)
        .init(height: 10, width: 13, inChannels: 4, outChannels: 4, kernel: 3, stride: 2, groups: 4, same: true, activation: .none, seed: 68),
        .init(height: 9, width: 6, inChannels: 3, outChannels: 3, kernel: 5, stride: 1, groups: 3, same: true, activation: .relu6, seed: 69),
        // direct (few input channels): the stem's shape, odd sizes, valid padding, Cout not a multiple of 8
        .init(height: 13, width: 13, inChannels: 3, outChannels: 32, kernel: 3, stride: 2, groups: 1, same: true, activation: .relu6, seed: 8),
        .init(height: 127, width: 7, inChannels: 3, outChannels: 32, kernel: 3, stride: 2, groups: 1, same: true, activation: .relu6, seed: 21),
        .init(height: 7, width: 13, inChannels: 5, outChannels: 7, kernel: 3, stride: 1, groups: 1, same: false, activation: .none, seed: 9),
        .init(height: 13, width: 7, inChannels: 3, outChannels: 43, kernel: 5, stride: 2, groups: 1, same: true, activation: .relu6, seed: 22),
        .init(height: 7, width: 7, inChannels: 8, outChannels: 12, kernel: 1, stride: 2, groups: 1, same: true, activation: .none, seed: 11),
        // direct (few output channels): the face detector's layers, padded and strided variants, partial last tiles
        .init(height: 13, width: 37, inChannels: 10, outChannels: 16, kernel: 3, stride: 1, groups: 1, same: false, activation: .none, seed: 24),
        .init(height: 11, width: 23, inChannels: 16, outChannels: 32, kernel: 3, stride: 1, groups: 1, same: false, activation: .none, seed: 25),
        .init(height: 9, width: 19, inChannels: 28, outChannels: 48, kernel: 3, stride: 1, groups: 1, same: true, activation: .relu6, seed: 26),
        .init(height: 7, width: 9, inChannels: 48, outChannels: 64, kernel: 2, stride: 1, groups: 1, same: false, activation: .none, seed: 27),
        .init(height: 15, width: 31, inChannels: 12, outChannels: 20, kernel: 3, stride: 2, groups: 1, same: true, activation: .relu, seed: 28),
        .init(height: 5, width: 3, inChannels: 16, outChannels: 9, kernel: 3, stride: 1, groups: 1, same: true, activation: .none, seed: 29),
        // explicit padding (BlazeFace pads 1 on every side, also before stride 2 where "same" would
        // pad only after), on every strategy; and lopsided pads
        .init(height: 12, width: 12, inChannels: 128, outChannels: 128, kernel: 3, stride: 2, groups: 128, same: false, activation: .none, seed: 41, pads: [1, 1, 1, 1]),
        .init(height: 13, width: 11, inChannels: 29, outChannels: 29, kernel: 3, stride: 2, groups: 29, same: false, activation: .none, seed: 42, pads: [1, 1, 1, 1]),
        .init(height: 9, width: 7, inChannels: 24, outChannels: 24, kernel: 3, stride: 1, groups: 24, same: false, activation: .relu, seed: 43, pads: [1, 1, 1, 1]),
        .init(height: 7, width: 9, inChannels: 17, outChannels: 17, kernel: 3, stride: 2, groups: 17, same: false, activation: .none, seed: 44, pads: [0, 2, 1, 0]),
        .init(height: 18, width: 14, inChannels: 3, outChannels: 32, kernel: 3, stride: 2, groups: 1, same: false, activation: .relu, seed: 45, pads: [1, 1, 1, 1]),
        .init(height: 11, width: 13, inChannels: 12, outChannels: 20, kernel: 3, stride: 1, groups: 1, same: false, activation: .none, seed: 46, pads: [2, 0, 0, 1]),
        .init(height: 8, width: 8, inChannels: 16, outChannels: 80, kernel: 3, stride: 2, groups: 1, same: false, activation: .relu, seed: 47, pads: [1, 1, 1, 1]),
        // general (im2col, then the packed GEMM): grouped
        .init(height: 13, width: 7, inChannels: 6, outChannels: 9, kernel: 5, stride: 2, groups: 3, same: true, activation: .relu6, seed: 10),
        .init(height: 7, width: 7, inChannels: 16, outChannels: 80, kernel: 3, stride: 2, groups: 1, same: true, activation: .relu6, seed: 23),
        .init(height: 9, width: 11, inChannels: 34, outChannels: 38, kernel: 3, stride: 2, groups: 2, same: true, activation: .none, seed: 48),
        // dlib's ResNet: 32 and more inputs, N % 16 in 0, 5 and 13, valid and same, K up to 2,304
        .init(height: 11, width: 13, inChannels: 32, outChannels: 32, kernel: 3, stride: 1, groups: 1, same: true, activation: .relu, seed: 49),
        .init(height: 13, width: 9, inChannels: 33, outChannels: 37, kernel: 3, stride: 2, groups: 1, same: false, activation: .none, seed: 50),
        .init(height: 5, width: 7, inChannels: 64, outChannels: 29, kernel: 3, stride: 1, groups: 1, same: true, activation: .relu6, seed: 51),
        .init(height: 4, width: 4, inChannels: 256, outChannels: 256, kernel: 3, stride: 1, groups: 1, same: true, activation: .relu, seed: 52),
        .init(height: 4, width: 3, inChannels: 40, outChannels: 48, kernel: 2, stride: 1, groups: 1, same: false, activation: .none, seed: 53),
        // taps that read only padding are left out: 1x1 and 1-wide maps under "same" 3x3 and 5x5
        .init(height: 1, width: 1, inChannels: 256, outChannels: 256, kernel: 3, stride: 1, groups: 1, same: true, activation: .none, seed: 54),
        .init(height: 1, width: 5, inChannels: 48, outChannels: 21, kernel: 3, stride: 1, groups: 1, same: true, activation: .relu, seed: 55),
        .init(height: 2, width: 1, inChannels: 35, outChannels: 17, kernel: 5, stride: 2, groups: 1, same: true, activation: .none, seed: 56),
        .init(height: 3, width: 3, inChannels: 32, outChannels: 16, kernel: 3, stride: 1, groups: 1, same: false, activation: .none, seed: 57, pads: [2, 0, 0, 2]),
    ]

    /// Runs a convolution on `inputs` (copied to separate allocations) and returns its output.
    static func run(_ operation: Conv2DOperation, inputs: [[Float]]) -> [Float] {
        run(operation, inputs: inputs, outputCount: operation.outputShape.elementCount)
    }

    /// Runs `operation` on `inputs` (copied to separate allocations) and returns its output
    /// buffer of `outputCount` floats.
    static func run(_ operation: some GraphOperation, inputs: [[Float]], outputCount: Int) -> [Float] {
        var output = [Float](repeating: .nan, count: max(outputCount, 1))
        var scratch = [Float](repeating: .nan, count: max(operation.scratchCount, 1))
        let pointers = inputs.map { values in
            let pointer = UnsafeMutablePointer<Float>.allocate(capacity: max(values.count, 1))
            pointer.initialize(from: values, count: values.count)
            return pointer
        }
        defer { pointers.forEach { $0.deallocate() } }
        output.withUnsafeMutableBufferPointer { output in
            scratch.withUnsafeMutableBufferPointer { scratch in
                operation.run(inputs: pointers.map { UnsafePointer($0) }, output: output.baseAddress!, scratch: scratch.baseAddress!)
            }
        }
        return output
    }

    @Test(arguments: convolutionCases, KernelPaths.withThreads)
    func convolutionMatchesReference(_ c: ConvCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let weights = random.floats(c.outChannels * (c.inChannels / c.groups) * c.kernel * c.kernel)
        let bias = random.floats(c.outChannels)
        let padding = c.padding
        let expected = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: weights, bias: bias, outChannels: c.outChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: padding, groups: c.groups, activation: c.activation)
        let operation = Conv2DOperation(
            name: "conv", input: 0, output: 1, inputShape: shape, outChannels: c.outChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: padding, groups: c.groups,
            activation: c.activation, weights: weights, bias: bias)
        #expect(operation.outputShape == expected.shape)
        var output: [Float] = []
        try KernelPaths.with(path.kernels, threads: path.threads) { output = Self.run(operation, inputs: [input]) }
        // Long sums (K = 1152) of values up to 3 in float32 round a little more than short ones.
        let tolerance: Float = c.inChannels / c.groups * c.kernel * c.kernel > 500 ? 5e-4 : 1e-4
        #expect(maximumAbsoluteDifference(output, expected.values) < tolerance)
    }

    /// A depthwise convolution writing the uint8 input of an int8 pointwise one
    /// (`QuantizingDepthwiseOperation`) gives, byte for byte, what the convolution's floats
    /// quantized by `cls_quantize_one` give, with zeros past the channels in each row: every
    /// depthwise case above, on every path (AVX-512 quantizes in its store, the others after),
    /// with per-channel multipliers (smoothing) and a range that sends some values past 0 and 255.
    @Test(arguments: convolutionCases.filter { $0.groups == $0.inChannels && $0.groups > 1 }, KernelPaths.withThreads)
    func quantizingDepthwiseMatchesConvolutionThenQuantization(_ c: ConvCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed + 1000)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let weights = random.floats(c.outChannels * c.kernel * c.kernel)
        let bias = random.floats(c.outChannels)
        let depthwise = Conv2DOperation(
            name: "depthwise", input: 0, output: 1, inputShape: shape, outChannels: c.outChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: c.padding, groups: c.groups,
            activation: c.activation, weights: weights, bias: bias)
        let smoothing = (0..<c.outChannels).map { _ in Float.random(in: 0.5...2, using: &random) }
        let matrix = QuantizedMatrix(
            weights: random.floats(5 * c.outChannels), outputs: 5, inputs: c.outChannels, bias: random.floats(5),
            input: ActivationQuantization(range: -1.5...2.5), smoothing: smoothing)
        let fused = try #require(QuantizingDepthwiseOperation(depthwise: depthwise, for: matrix))
        var floats: [Float] = [], bytes: [UInt8] = []
        try KernelPaths.with(path.kernels, threads: path.threads) {
            floats = Self.run(depthwise, inputs: [input])
            let written = Self.run(fused, inputs: [input], outputCount: depthwise.outputShape.elementCount)
            bytes = written.withUnsafeBytes { Array($0.prefix(depthwise.outputShape.pixelCount * matrix.rowBytes)) }
        }
        let (quantized, mismatches) = Self.quantizedMismatches(bytes, floats: floats, for: matrix)
        #expect(mismatches == 0)
        // The range was chosen to clamp: the top is reached, and the bottom without an activation.
        #expect(quantized.contains(255))
        #expect(quantized.contains(0) || c.activation != .none)
    }

    struct ResidualCase: CustomTestStringConvertible, Sendable {
        var pixels: Int, inChannels: Int, outChannels: Int, activation: Activation, addActivation: Activation, seed: UInt64
        var testDescription: String { "\(pixels)px \(inChannels)->\(outChannels) \(activation)+add \(addActivation) seed \(seed)" }
    }

    static let residualCases: [ResidualCase] = [
        .init(pixels: 7, inChannels: 13, outChannels: 24, activation: .none, addActivation: .none, seed: 31),
        .init(pixels: 13, inChannels: 127, outChannels: 40, activation: .relu6, addActivation: .relu, seed: 32),
        .init(pixels: 127, inChannels: 7, outChannels: 7, activation: .none, addActivation: .relu6, seed: 33),
        .init(pixels: 49, inChannels: 1152, outChannels: 192, activation: .none, addActivation: .none, seed: 34),
        .init(pixels: 196, inChannels: 24, outChannels: 112, activation: .relu, addActivation: .none, seed: 35),
        .init(pixels: 143, inChannels: 144, outChannels: 24, activation: .none, addActivation: .none, seed: 36),
        .init(pixels: 61, inChannels: 240, outChannels: 40, activation: .relu6, addActivation: .relu6, seed: 37),
        .init(pixels: 29, inChannels: 19, outChannels: 53, activation: .none, addActivation: .relu, seed: 38),
    ]

    /// A pointwise conv with the residual Add fused into its store equals conv, then Add.
    @Test(arguments: residualCases, KernelPaths.withThreads)
    func fusedResidualMatchesConvThenAdd(_ c: ResidualCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.pixels, width: 1, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let weights = random.floats(c.outChannels * c.inChannels), bias = random.floats(c.outChannels)
        let skip = random.floats(c.pixels * c.outChannels, in: -4...4)
        let convolved = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: weights, bias: bias, outChannels: c.outChannels,
            kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: c.activation).values
        let expected = ReferenceKernels.add(convolved, skip, activation: c.addActivation)
        let conv = Conv2DOperation(
            name: "project", input: 0, output: 1, inputShape: shape, outChannels: c.outChannels, kernel: (1, 1),
            stride: (1, 1), padding: .none, groups: 1, activation: c.activation, weights: weights, bias: bias)
        let fused = try! #require(conv.fusingResidual(2, activation: c.addActivation, output: 3))
        #expect(fused.inputs == [0, 2] && fused.output == 3)
        var output: [Float] = []
        try KernelPaths.with(path.kernels, threads: path.threads) { output = Self.run(fused, inputs: [input, skip]) }
        let tolerance: Float = c.inChannels > 500 ? 5e-4 : 1e-4
        #expect(maximumAbsoluteDifference(output, expected) < tolerance)
    }

    /// A 3x3 convolution on im2col (dlib's ResNet's second conv of a block) with the residual Add
    /// fused into the GEMM's store equals conv, then Add; grouped convolutions do not fuse.
    @Test(arguments: [(7, 9, 32, 32, UInt64(71)), (5, 3, 64, 29, 72), (1, 1, 256, 256, 73), (4, 4, 40, 48, 74)], KernelPaths.withThreads)
    func fusedResidualOnIm2colMatchesConvThenAdd(_ c: (height: Int, width: Int, inChannels: Int, outChannels: Int, seed: UInt64), path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let weights = random.floats(c.outChannels * c.inChannels * 9), bias = random.floats(c.outChannels)
        let skip = random.floats(c.height * c.width * c.outChannels, in: -4...4)
        let padding = Padding.same(input: shape, kernel: (3, 3), stride: (1, 1))
        let convolved = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: weights, bias: bias, outChannels: c.outChannels,
            kernel: (3, 3), stride: (1, 1), padding: padding, groups: 1, activation: .none).values
        let expected = ReferenceKernels.add(convolved, skip, activation: .relu)
        let conv = Conv2DOperation(
            name: "block.conv2", input: 0, output: 1, inputShape: shape, outChannels: c.outChannels, kernel: (3, 3),
            stride: (1, 1), padding: padding, groups: 1, activation: .none, weights: weights, bias: bias)
        #expect(conv.strategy == .im2col)
        let fused = try #require(conv.fusingResidual(2, activation: .relu, output: 3))
        #expect(fused.inputs == [0, 2] && fused.output == 3)
        var output: [Float] = []
        try KernelPaths.with(path.kernels, threads: path.threads) { output = Self.run(fused, inputs: [input, skip]) }
        let tolerance: Float = c.inChannels * 9 > 500 ? 5e-4 : 1e-4
        #expect(maximumAbsoluteDifference(output, expected) < tolerance)
        let grouped = Conv2DOperation(
            name: "grouped", input: 0, output: 1, inputShape: shape, outChannels: c.outChannels * 2 / 2, kernel: (3, 3),
            stride: (1, 1), padding: padding, groups: c.inChannels % 2 == 0 && c.outChannels % 2 == 0 ? 2 : 1, activation: .none,
            weights: random.floats(c.outChannels * c.inChannels * 9), bias: bias)
        #expect((grouped.fusingResidual(2, activation: .relu, output: 3) == nil) == (grouped.groups > 1))
    }

    struct ExpandDepthwiseCase: CustomTestStringConvertible, Sendable {
        var height: Int, width: Int, inChannels: Int, midChannels: Int, kernel: Int, stride: Int, bandBytes: Int, seed: UInt64
        var testDescription: String {
            "\(height)x\(width)x\(inChannels)->\(midChannels) dw k\(kernel) s\(stride) band \(bandBytes)B seed \(seed)"
        }
    }

    static let expandDepthwiseCases: [ExpandDepthwiseCase] = [
        .init(height: 13, width: 7, inChannels: 5, midChannels: 29, kernel: 3, stride: 1, bandBytes: 1, seed: 51),
        .init(height: 13, width: 13, inChannels: 7, midChannels: 24, kernel: 5, stride: 2, bandBytes: 1, seed: 52),
        .init(height: 127, width: 9, inChannels: 16, midChannels: 48, kernel: 3, stride: 2, bandBytes: 4096, seed: 53),
        .init(height: 7, width: 7, inChannels: 13, midChannels: 40, kernel: 5, stride: 1, bandBytes: 1 << 20, seed: 54),
        .init(height: 28, width: 13, inChannels: 24, midChannels: 144, kernel: 5, stride: 1, bandBytes: 30_000, seed: 55),
    ]

    /// The banded pointwise + depthwise op equals the reference expansion, then the reference
    /// depthwise convolution, for bands of one row up to the whole map.
    @Test(arguments: expandDepthwiseCases, KernelPaths.withThreads)
    func expandDepthwiseMatchesReference(_ c: ExpandDepthwiseCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let expandWeights = random.floats(c.midChannels * c.inChannels), expandBias = random.floats(c.midChannels)
        let depthWeights = random.floats(c.midChannels * c.kernel * c.kernel), depthBias = random.floats(c.midChannels)
        let middle = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: expandWeights, bias: expandBias, outChannels: c.midChannels,
            kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: .relu6)
        let padding = Padding.same(input: middle.shape, kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride))
        let expected = ReferenceKernels.conv2d(
            input: middle.values, shape: middle.shape, weights: depthWeights, bias: depthBias, outChannels: c.midChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: padding, groups: c.midChannels, activation: .relu6)
        let expand = Conv2DOperation(
            name: "expand", input: 0, output: 1, inputShape: shape, outChannels: c.midChannels, kernel: (1, 1),
            stride: (1, 1), padding: .none, groups: 1, activation: .relu6, weights: expandWeights, bias: expandBias)
        let depthwise = Conv2DOperation(
            name: "depthwise", input: 1, output: 2, inputShape: middle.shape, outChannels: c.midChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: padding, groups: c.midChannels,
            activation: .relu6, weights: depthWeights, bias: depthBias)
        let fused = try #require(PointwiseDepthwiseOperation(expand: expand, depthwise: depthwise, bandBytes: c.bandBytes))
        #expect(fused.inputs == [0] && fused.output == 2)
        var output = [Float](repeating: .nan, count: depthwise.outputShape.elementCount)
        var scratch = [Float](repeating: .nan, count: fused.scratchCount)
        try KernelPaths.with(path.kernels, threads: path.threads) {
            input.withUnsafeBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output in
                    scratch.withUnsafeMutableBufferPointer { scratch in
                        fused.run(inputs: [input.baseAddress!], output: output.baseAddress!, scratch: scratch.baseAddress!)
                    }
                }
            }
        }
        #expect(maximumAbsoluteDifference(output, expected.values) < 1e-4)
    }

    /// The banded op made to write an int8 convolution's uint8 input (`quantizing(for:)`) gives,
    /// byte for byte, its own floats quantized by `cls_quantize_one`, zeros past the channels, for
    /// bands of one row up to the whole map, on every path (AVX-512 quantizes in the depthwise
    /// store, the others after, in each band's own scratch).
    @Test(arguments: expandDepthwiseCases, KernelPaths.withThreads)
    func quantizingExpandDepthwiseMatchesItsFloatsQuantized(_ c: ExpandDepthwiseCase, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed + 2000)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        let middleShape = FeatureMapShape(height: c.height, width: c.width, channels: c.midChannels)
        let padding = Padding.same(input: middleShape, kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride))
        let expand = Conv2DOperation(
            name: "expand", input: 0, output: 1, inputShape: shape, outChannels: c.midChannels, kernel: (1, 1),
            stride: (1, 1), padding: .none, groups: 1, activation: .relu6, weights: random.floats(c.midChannels * c.inChannels),
            bias: random.floats(c.midChannels))
        let depthwise = Conv2DOperation(
            name: "depthwise", input: 1, output: 2, inputShape: middleShape, outChannels: c.midChannels,
            kernel: (c.kernel, c.kernel), stride: (c.stride, c.stride), padding: padding, groups: c.midChannels,
            activation: .none, weights: random.floats(c.midChannels * c.kernel * c.kernel), bias: random.floats(c.midChannels))
        let smoothing = (0..<c.midChannels).map { _ in Float.random(in: 0.5...2, using: &random) }
        let matrix = QuantizedMatrix(
            weights: random.floats(5 * c.midChannels), outputs: 5, inputs: c.midChannels, bias: random.floats(5),
            input: ActivationQuantization(range: -1.5...2.5), smoothing: smoothing)
        let plain = try #require(PointwiseDepthwiseOperation(expand: expand, depthwise: depthwise, bandBytes: c.bandBytes))
        let quantizing = try #require(plain.quantizing(for: matrix))
        #expect(quantizing.quantizedOutput != nil && quantizing.kindDescription.hasSuffix("->uint8"))
        let count = depthwise.outputShape.elementCount
        var floats: [Float] = [], bytes: [UInt8] = []
        try KernelPaths.with(path.kernels, threads: path.threads) {
            floats = Self.run(plain, inputs: [input], outputCount: count)
            let written = Self.run(quantizing, inputs: [input], outputCount: count)
            bytes = written.withUnsafeBytes { Array($0.prefix(depthwise.outputShape.pixelCount * matrix.rowBytes)) }
        }
        let (quantized, mismatches) = Self.quantizedMismatches(bytes, floats: floats, for: matrix)
        #expect(mismatches == 0)
        #expect(quantized.contains(255) && quantized.contains(0))
    }

    /// `floats` (pixels of `matrix.inputs` channels) quantized by the reference, and how many of
    /// `bytes` (uint8 rows `matrix.rowBytes` apart, zeros past the channels) differ from them.
    static func quantizedMismatches(_ bytes: [UInt8], floats: [Float], for matrix: QuantizedMatrix) -> (quantized: [UInt8], mismatches: Int) {
        let quantized = QuantizedReferenceKernels.quantize(floats, for: matrix)
        var mismatches = 0
        for pixel in 0..<floats.count / matrix.inputs {
            for channel in 0..<matrix.rowBytes {
                let expected = channel < matrix.inputs ? quantized[pixel * matrix.inputs + channel] : 0
                if bytes[pixel * matrix.rowBytes + channel] != expected { mismatches += 1 }
            }
        }
        return (quantized, mismatches)
    }

    /// Two threads split the work but every output element is computed by one thread in the same
    /// order as with one, so results are bitwise identical; repeated to shake out pool races.
    @Test(arguments: KernelPath.allCases)
    func twoThreadsGiveIdenticalResults(path: KernelPath) throws {
        var random = SeededRandom(seed: 41)
        let shapes: [(FeatureMapShape, Int, Int, Int)] = [
            (.init(height: 56, width: 56, channels: 24), 144, 1, 1),    // pointwise, split by rows
            (.init(height: 7, width: 7, channels: 1152), 192, 1, 1),    // pointwise, split by panels
            (.init(height: 56, width: 56, channels: 144), 144, 3, 144), // depthwise, split by rows
            (.init(height: 7, width: 7, channels: 1152), 1152, 5, 1152), // depthwise, split by channels
            (.init(height: 63, width: 63, channels: 3), 32, 3, 1),      // direct, split by rows
        ]
        for (shape, outChannels, k, groups) in shapes {
            let input = random.floats(shape.elementCount, in: -3...3)
            let weights = random.floats(outChannels * shape.channels / groups * k * k), bias = random.floats(outChannels)
            let padding = Padding.same(input: shape, kernel: (k, k), stride: (k == 3 && groups == 1 ? 2 : 1, k == 3 && groups == 1 ? 2 : 1))
            let stride = k == 3 && groups == 1 ? 2 : 1
            let operation = Conv2DOperation(
                name: "conv", input: 0, output: 1, inputShape: shape, outChannels: outChannels, kernel: (k, k),
                stride: (stride, stride), padding: k == 1 ? .none : padding, groups: groups, activation: .relu6, weights: weights, bias: bias)
            var single: [Float] = []
            try KernelPaths.with(path, threads: 1) { single = Self.run(operation, inputs: [input]) }
            for _ in 0..<20 {
                var pair: [Float] = []
                try KernelPaths.with(path, threads: 2) { pair = Self.run(operation, inputs: [input]) }
                #expect(pair == single, "\(operation.kindDescription) \(shape)")
            }
        }
        // A banded op runs its kernels inside the pool's tasks: the workers must take the path of
        // the thread that started them (here, a path chosen for this thread alone).
        let expand = Conv2DOperation(
            name: "expand", input: 0, output: 1, inputShape: .init(height: 28, width: 13, channels: 24), outChannels: 144,
            kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: .relu6,
            weights: random.floats(144 * 24), bias: random.floats(144))
        let padding = Padding.same(input: expand.outputShape, kernel: (5, 5), stride: (1, 1))
        let depthwise = Conv2DOperation(
            name: "depthwise", input: 1, output: 2, inputShape: expand.outputShape, outChannels: 144, kernel: (5, 5),
            stride: (1, 1), padding: padding, groups: 144, activation: .relu6, weights: random.floats(144 * 25), bias: random.floats(144))
        let fused = try #require(PointwiseDepthwiseOperation(expand: expand, depthwise: depthwise, bandBytes: 30_000))
        let input = random.floats(expand.inputShape.elementCount, in: -3...3)
        func run(threads: Int) throws -> [Float] {
            var output = [Float](repeating: .nan, count: depthwise.outputShape.elementCount)
            var scratch = [Float](repeating: .nan, count: fused.scratchCount)
            try KernelPaths.with(path, threads: threads) {
                input.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { output in
                        scratch.withUnsafeMutableBufferPointer { scratch in
                            fused.run(inputs: [input.baseAddress!], output: output.baseAddress!, scratch: scratch.baseAddress!)
                        }
                    }
                }
            }
            return output
        }
        let single = try run(threads: 1)
        for _ in 0..<20 { #expect(try run(threads: 2) == single, "banded expansion and depthwise") }
    }

    /// The shipped network compiled with and without fusions: no Add op is left, the big expansions
    /// run banded, and the logits agree.
    @Test func fusionsKeepTheNetworkOutput() throws {
        let description = try ModelDescription(contentsOf: ShippedModel.directory.appending(path: "model.json"))
        let weights = try SafeTensorsFile(contentsOf: ShippedModel.directory.appending(path: description.weights))
        let fused = try GraphCompiler.compile(description, weights: weights)
        let plain = try GraphCompiler.compile(description, weights: weights, fuseResiduals: false, fuseExpandDepthwise: false)
        #expect(!fused.operations.contains { $0 is AddOperation })
        let banded = fused.operations.filter { $0 is PointwiseDepthwiseOperation }.count
        #expect(banded >= 1)
        #expect(plain.operations.count - fused.operations.count == plain.operations.filter { $0 is AddOperation }.count + banded)
        let input = goldenInput(seed: 7, count: 224 * 224 * 3)
        let logits = { Self.logits(of: $0, description, input: input) }
        #expect(maximumAbsoluteDifference(logits(fused), logits(plain)) < 1e-4)
    }

    /// The logits `graph` (compiled from `description`) gives for `input`.
    static func logits(of graph: CompiledGraph, _ description: ModelDescription, input: [Float]) -> [Float] {
        let workspace = graph.makeWorkspace()
        graph.pointer(to: graph.input, in: workspace).update(from: input, count: input.count)
        graph.run(in: workspace)
        let value = graph.value(named: description.outputs.logits)!
        return Array(UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: graph.shapes[value].elementCount))
    }

    /// The int8 network with and without its depthwise convolutions writing the int8 projections'
    /// uint8 inputs: the same logits to the bit (the same bytes reach the same GEMM), and the fusion
    /// happens in most blocks.
    @Test func quantizedInputFusionKeepsTheInt8NetworkBitForBit() throws {
        let description = try ModelDescription(contentsOf: ShippedModel.directory.appending(path: "model.json"))
        let weights = try SafeTensorsFile(contentsOf: ShippedModel.directory.appending(path: description.weights))
        let table = try QuantizationTable(contentsOf: ShippedModel.directory.appending(path: QuantizationTable.fileName))
        let fused = try GraphCompiler.compile(description, weights: weights, quantization: table)
        let plain = try GraphCompiler.compile(description, weights: weights, quantization: table, fuseQuantizedInputs: false)
        let banded = fused.operations.compactMap { $0 as? PointwiseDepthwiseOperation }.filter { $0.quantizedOutput != nil }.count
        let quantizing = fused.operations.filter { $0 is QuantizingDepthwiseOperation }.count
        #expect(quantizing >= 10 && banded >= 1)
        #expect(fused.operations.compactMap { $0 as? QuantizedPointwiseConvOperation }.filter(\.readsQuantizedInput).count == quantizing + banded)
        #expect(!plain.operations.contains { $0 is QuantizingDepthwiseOperation || ($0 as? PointwiseDepthwiseOperation)?.quantizedOutput != nil })
        for seed: UInt32 in [7, 8] {
            let input = goldenInput(seed: seed, count: 224 * 224 * 3)
            #expect(Self.logits(of: fused, description, input: input) == Self.logits(of: plain, description, input: input), "seed \(seed)")
        }
    }

    @Test func strategyFollowsShape() {
        func strategy(_ k: Int, _ s: Int, _ g: Int, _ cin: Int, _ cout: Int) -> Conv2DOperation.Strategy {
            let shape = FeatureMapShape(height: 9, width: 9, channels: cin)
            return Conv2DOperation(
                name: "c", input: 0, output: 1, inputShape: shape, outChannels: cout, kernel: (k, k), stride: (s, s),
                padding: .same(input: shape, kernel: (k, k), stride: (s, s)), groups: g, activation: .none,
                weights: [Float](repeating: 0, count: cout * cin / g * k * k), bias: [Float](repeating: 0, count: cout)).strategy
        }
        #expect(strategy(1, 1, 1, 16, 8) == .pointwise)
        #expect(strategy(3, 2, 16, 16, 16) == .depthwise)
        #expect(strategy(3, 2, 1, 3, 32) == .direct)
        #expect(strategy(3, 1, 1, 16, 32) == .direct)
        #expect(strategy(3, 1, 1, 31, 64) == .direct)
        #expect(strategy(3, 1, 1, 32, 32) == .im2col)
        #expect(strategy(3, 2, 1, 64, 64) == .im2col)
        #expect(strategy(2, 1, 1, 64, 128) == .im2col)
        #expect(strategy(1, 2, 1, 16, 8) == .direct)
        #expect(strategy(5, 1, 3, 6, 9) == .im2col)
    }

    @Test func im2colLeavesOutTapsThatReadOnlyPadding() {
        func taps(_ height: Int, _ width: Int, kernel: Int, stride: Int = 1, padding: Padding? = nil) -> [Im2Col.Tap] {
            let input = FeatureMapShape(height: height, width: width, channels: 1)
            let padding = padding ?? .same(input: input, kernel: (kernel, kernel), stride: (stride, stride))
            let output = Conv2DOperation.outputShape(input: input, outChannels: 1, kernel: (kernel, kernel), stride: (stride, stride), padding: padding)
            return Im2Col.taps(input: input, kernel: (kernel, kernel), stride: (stride, stride), padding: padding, output: output)
        }
        #expect(taps(1, 1, kernel: 3) == [Im2Col.Tap(y: 1, x: 1)])
        #expect(taps(1, 4, kernel: 3) == [Im2Col.Tap(y: 1, x: 0), Im2Col.Tap(y: 1, x: 1), Im2Col.Tap(y: 1, x: 2)])
        #expect(taps(4, 4, kernel: 3).count == 9)
        #expect(taps(4, 4, kernel: 3, stride: 2, padding: Padding.none).count == 9)
        #expect(taps(2, 2, kernel: 5).count == 9)  // rows and columns 1-3 of 0-4
        // Padded only above and to the left by 2: the first rows and columns of taps read padding alone.
        #expect(taps(3, 3, kernel: 3, padding: Padding(top: 2, left: 2, bottom: 0, right: 0)).count == 9)
        #expect(taps(1, 1, kernel: 3, padding: Padding(top: 2, left: 2, bottom: 0, right: 0)) == [Im2Col.Tap(y: 2, x: 2)])
    }

    @Test(arguments: [7, 13, 127, 1000], KernelPath.allCases)
    func addAndActivationMatchReference(count: Int, path: KernelPath) throws {
        var random = SeededRandom(seed: UInt64(count))
        let a = random.floats(count, in: -8...8), b = random.floats(count, in: -8...8)
        try KernelPaths.with(path) {
            for activation in [Activation.none, .relu, .relu6] {
                var output = [Float](repeating: .nan, count: count)
                var unused: Float = 0
                a.withUnsafeBufferPointer { a in
                    b.withUnsafeBufferPointer { b in
                        AddOperation(name: "add", inputs: [0, 1], output: 2, count: count, activation: activation)
                            .run(inputs: [a.baseAddress!, b.baseAddress!], output: &output, scratch: &unused)
                    }
                }
                #expect(output == ReferenceKernels.add(a, b, activation: activation))
            }
        }
    }

    @Test(arguments: [(7, 13), (1, 127), (49, 1280)])
    func poolingFullyConnectedAndSoftmaxMatchReference(pixels: Int, channels: Int) {
        var random = SeededRandom(seed: UInt64(pixels * channels))
        let shape = FeatureMapShape(height: pixels, width: 1, channels: channels)
        let input = random.floats(shape.elementCount)
        var pooled = [Float](repeating: .nan, count: channels)
        var unused: Float = 0
        input.withUnsafeBufferPointer { input in
            GlobalAveragePoolOperation(name: "pool", inputs: [0], output: 1, inputShape: shape)
                .run(inputs: [input.baseAddress!], output: &pooled, scratch: &unused)
        }
        #expect(maximumAbsoluteDifference(pooled, ReferenceKernels.globalAveragePool(input, shape: shape)) < 1e-5)

        let outFeatures = 13
        let weights = random.floats(outFeatures * channels), bias = random.floats(outFeatures)
        var logits = [Float](repeating: .nan, count: outFeatures)
        pooled.withUnsafeBufferPointer { pooled in
            FullyConnectedOperation(name: "fc", inputs: [0], output: 1, inFeatures: channels, outFeatures: outFeatures,
                                    weights: weights, bias: bias, activation: .none)
                .run(inputs: [pooled.baseAddress!], output: &logits, scratch: &unused)
        }
        let expectedLogits = ReferenceKernels.fullyConnected(pooled, weights: weights, bias: bias, outFeatures: outFeatures, activation: .none)
        #expect(maximumAbsoluteDifference(logits, expectedLogits) < 1e-4)

        var probabilities = [Float](repeating: .nan, count: outFeatures)
        logits.withUnsafeBufferPointer { logits in
            SoftmaxOperation(name: "softmax", inputs: [0], output: 1, pixelCount: 1, channels: outFeatures)
                .run(inputs: [logits.baseAddress!], output: &probabilities, scratch: &unused)
        }
        #expect(maximumAbsoluteDifference(probabilities, ReferenceKernels.softmax(logits)) < 1e-6)
        #expect(abs(probabilities.reduce(0, +) - 1) < 1e-5)
    }

    @Test func samePaddingMatchesTensorFlow() {
        // 224 -> 112 with k3 s2: total pad max((112-1)*2+3-224, 0) = 1, smaller half (0) on top/left.
        let stem = Padding.same(input: .init(height: 224, width: 224, channels: 3), kernel: (3, 3), stride: (2, 2))
        #expect(stem == Padding(top: 0, left: 0, bottom: 1, right: 1))
        let odd = Padding.same(input: .init(height: 7, width: 7, channels: 1), kernel: (5, 5), stride: (1, 1))
        #expect(odd == Padding(top: 2, left: 2, bottom: 2, right: 2))
        let stride2k5 = Padding.same(input: .init(height: 28, width: 28, channels: 1), kernel: (5, 5), stride: (2, 2))
        #expect(stride2k5 == Padding(top: 1, left: 1, bottom: 2, right: 2))
    }

    @Test func memoryPlanNeverOverlapsLiveValues() {
        // A chain with a residual: v0 -> v1 -> v2, add(v2, v0) -> v3.
        let sizes = [100, 50, 100, 100]
        let plan = MemoryPlan(sizes: sizes, firstUse: [-1, 0, 1, 2], lastUse: [2, 1, 2, 3])
        func overlaps(_ a: Int, _ b: Int) -> Bool {
            plan.offsets[a] < plan.offsets[b] + sizes[b] && plan.offsets[b] < plan.offsets[a] + sizes[a]
        }
        #expect(!overlaps(0, 1) && !overlaps(0, 2) && !overlaps(1, 2) && !overlaps(2, 3) && !overlaps(0, 3))
        #expect(plan.offsets[3] == plan.offsets[1] || plan.arenaCount <= 400)
        #expect(plan.offsets.allSatisfy { $0 % MemoryPlan.alignment == 0 })
    }
}
