import ClassifyTestSupport
import Testing
@testable import Classify

/// The sparse pointwise kernel (`cls_sparse_pointwise`, for BlazeFace's pruned 1x1 convolutions)
/// against the scalar reference: odd pixel counts around its 32-pixel tile (a tile's last 1-31
/// pixels), channel counts that are and are not multiples of 8 (the transposed and the scalar
/// tile moves), with and without a fused residual (also in place), every kernel path it has
/// (AVX2 and portable; an AVX-512 CPU runs the AVX2 variant) and one and two threads.
struct SparsePointwiseTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var pixels: Int, inChannels: Int, outChannels: Int, zeros: Double, activation: Activation, residual: Activation?, seed: UInt64
        var testDescription: String {
            "\(pixels)px \(inChannels)->\(outChannels) \(Int(zeros * 100))% zero \(activation)" + (residual.map { " +add \($0)" } ?? "") + " seed \(seed)"
        }
    }

    static let cases: [Case] = [
        .init(pixels: 36, inChannels: 384, outChannels: 96, zeros: 0.7, activation: .none, residual: nil, seed: 1),
        .init(pixels: 144, inChannels: 48, outChannels: 192, zeros: 0.7, activation: .none, residual: .relu, seed: 2),
        .init(pixels: 9216, inChannels: 8, outChannels: 32, zeros: 0.7, activation: .none, residual: .relu, seed: 3),
        .init(pixels: 1, inChannels: 3, outChannels: 5, zeros: 0.6, activation: .relu6, residual: nil, seed: 4),
        .init(pixels: 33, inChannels: 13, outChannels: 7, zeros: 0.5, activation: .relu, residual: .relu6, seed: 5),
        .init(pixels: 31, inChannels: 16, outChannels: 24, zeros: 0.9, activation: .none, residual: Activation.none, seed: 6),
        .init(pixels: 97, inChannels: 64, outChannels: 9, zeros: 0.7, activation: .relu, residual: nil, seed: 7),
        .init(pixels: 64, inChannels: 40, outChannels: 16, zeros: 1.0, activation: .none, residual: .relu, seed: 8),
    ]

    @Test(arguments: cases, KernelPaths.withThreads)
    func sparseKernelMatchesTheReference(_ c: Case, path: (kernels: KernelPath, threads: Int)) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.pixels, width: 1, channels: c.inChannels)
        let input = random.floats(shape.elementCount, in: -3...3)
        var weights = random.floats(c.outChannels * c.inChannels)
        let zeroCount = Int((c.zeros * Double(weights.count)).rounded(.up))
        for index in Array(weights.indices).shuffled(using: &random).prefix(zeroCount) { weights[index] = 0 }
        let bias = random.floats(c.outChannels)
        let skip = random.floats(c.pixels * c.outChannels, in: -4...4)
        let convolved = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: weights, bias: bias, outChannels: c.outChannels,
            kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: c.activation).values
        let expected = c.residual.map { ReferenceKernels.add(convolved, skip, activation: $0) } ?? convolved

        let sparse = try #require(weights.withUnsafeBufferPointer { SparsePointwiseWeights($0, inChannels: c.inChannels, outChannels: c.outChannels) })
        let (lower, upper) = c.activation.clampRange
        let (residualLower, residualUpper) = c.residual?.clampRange ?? (-.infinity, .infinity)
        func run(inPlace: Bool) throws -> [Float] {
            var output = inPlace ? skip : [Float](repeating: .nan, count: c.pixels * c.outChannels)
            var scratch = [Float](repeating: .nan, count: sparse.scratchCount)
            try KernelPaths.with(path.kernels, threads: path.threads) {
                input.withUnsafeBufferPointer { input in
                    skip.withUnsafeBufferPointer { skip in
                        output.withUnsafeMutableBufferPointer { output in
                            scratch.withUnsafeMutableBufferPointer { scratch in
                                let residual = c.residual == nil ? nil : inPlace ? UnsafePointer(output.baseAddress!) : skip.baseAddress!
                                sparse.run(
                                    pixels: c.pixels, input: input.baseAddress!, bias: bias, lower: lower, upper: upper,
                                    residual: residual, residualLower: residualLower, residualUpper: residualUpper,
                                    output: output.baseAddress!, scratch: scratch.baseAddress!, scratchCount: scratch.count)
                            }
                        }
                    }
                }
            }
            return output
        }
        let tolerance: Float = c.inChannels > 200 ? 5e-4 : 1e-4
        #expect(maximumAbsoluteDifference(try run(inPlace: false), expected) < tolerance)
        if c.residual != nil { #expect(maximumAbsoluteDifference(try run(inPlace: true), expected) < tolerance) }
    }

    /// The threshold is exact: half the weights zero (odd and even counts) is sparse, one zero
    /// fewer is dense.
    @Test(arguments: [(3, 5), (4, 6), (1, 1), (7, 9)])
    func halfZeroIsTheThreshold(inChannels: Int, outChannels: Int) {
        let count = inChannels * outChannels
        func sparse(zeros: Int) -> SparsePointwiseWeights? {
            let weights = (0..<count).map { $0 < zeros ? Float(0) : Float($0 + 1) }
            return weights.withUnsafeBufferPointer { SparsePointwiseWeights($0, inChannels: inChannels, outChannels: outChannels) }
        }
        let half = (count + 1) / 2
        #expect(sparse(zeros: half)?.values.count == count - half)
        #expect(sparse(zeros: half - 1) == nil)
        #expect(sparse(zeros: count)?.values.count == 0)
    }

    /// Weights less than half zero stay dense; at half or more the convolution carries the sparse
    /// form where its path runs it (AVX2 and portable always; AVX-512 only when the outputs leave a
    /// 16-channel GEMM panel part empty and the GEMM has no narrow tile for them: 8 outputs, not 16
    /// or 24) and computes what the dense GEMM computes.
    @Test(arguments: KernelPath.allCases, [8, 16, 24])
    func convolutionUsesSparseWeightsOnlyWhenMostlyZero(path: KernelPath, outChannels: Int) throws {
        var random = SeededRandom(seed: 40)
        let shape = FeatureMapShape(height: 5, width: 7, channels: 24)
        let input = random.floats(shape.elementCount, in: -3...3), bias = random.floats(outChannels)
        var weights = random.floats(outChannels * 24)
        func conv() -> Conv2DOperation {
            Conv2DOperation(name: "pw", input: 0, output: 1, inputShape: shape, outChannels: outChannels, kernel: (1, 1), stride: (1, 1),
                            padding: .none, groups: 1, activation: .relu, weights: weights, bias: bias)
        }
        let expected = ReferenceKernels.conv2d(
            input: input, shape: shape, weights: weights.enumerated().map { $0.offset % 2 == 0 ? 0 : $0.element }, bias: bias,
            outChannels: outChannels, kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: .relu).values
        var output: [Float] = []
        let runsSparse = path != .avx512 || outChannels == 8
        try KernelPaths.with(path) {
            #expect(conv().sparse == nil)
            for index in weights.indices where index % 2 == 0 { weights[index] = 0 }
            let operation = conv()
            #expect((operation.sparse != nil) == runsSparse && operation.strategy == .pointwise)
            #expect(operation.sparse == nil || operation.scratchCount > 0)
            output = KernelTests.run(operation, inputs: [input])
        }
        #expect(maximumAbsoluteDifference(output, expected) < 1e-4)
    }
}
