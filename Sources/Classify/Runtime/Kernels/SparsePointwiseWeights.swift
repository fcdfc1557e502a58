import CClassifyKernels
import Foundation

/// A pointwise convolution's nonzero weights, output channel by output channel, for
/// `cls_sparse_pointwise`: MediaPipe's BlazeFace ships with 70% of every 1x1 convolution's
/// weights pruned to zero, and skipping them does a third of the multiply-adds.
///
/// Made at load only for weights at least `minimumZeroFraction` zero; immutable and shared.
///
/// Usage: `if let sparse = SparsePointwiseWeights(weights, inChannels: 32, outChannels: 64) { ... }`
struct SparsePointwiseWeights: Sendable {
    /// Output channel o's nonzeros are `rowStart[o] ..< rowStart[o + 1]`.
    let rowStart: AlignedArray<Int32>
    /// Where each nonzero's input channel lies in the kernel's transposed tile.
    let offsets: AlignedArray<Int32>
    let values: AlignedFloats
    let inChannels: Int
    let outChannels: Int

    /// Below this share of zeros the dense GEMM is faster (it runs near the FMA peak; the sparse
    /// kernel pays for two transposes per tile and loads per nonzero).
    static let minimumZeroFraction = 0.5

    /// False when the environment says `CLASSIFY_SPARSE=off`: every pointwise convolution then
    /// runs the dense GEMM, to measure what the sparse kernel gains
    /// (`CLASSIFY_SPARSE=off classify-bench face-network`).
    static let enabled = ProcessInfo.processInfo.environment["CLASSIFY_SPARSE"] != "off"

    /// Whether the sparse kernel beats the dense GEMM for `outChannels` outputs on `path`. On the
    /// AVX2 and portable paths it does for every pruned layer. The AVX-512 GEMM fills panels of 16
    /// output channels and runs near the FMA peak, so there the sparse kernel (whose vectors run
    /// over pixels) wins only where panels are part empty and the GEMM has no tile for that:
    /// BlazeFace's 32 -> 8 layers at 96x96, 0.125 -> 0.076 ms; its 16-, 32-, 48- and 64-output
    /// layers ran 5-50% slower sparse (`classify-bench face-network --layers`, Xeon family 6 model
    /// 207, AVX-512 against `CLASSIFY_KERNELS=avx2`). Widths of 17-24, 33-40 and 49-56 have the
    /// GEMM's narrow tiles, which beat it too: 48 -> 24 at 48x48, 0.048 (sparse) against 0.044 ms.
    ///
    /// Usage: `if SparsePointwiseWeights.beatsDense(outChannels: 8, on: .avx512) { ... }`
    static func beatsDense(outChannels: Int, on path: KernelPath) -> Bool {
        enabled && (path != .avx512 || cls_gemm_avx512_leaves_panel_empty(outChannels) != 0)
    }

    /// Floats of scratch for up to `maximumTasks` threads.
    static let maximumTasks = 2

    /// - Parameter weights: PyTorch layout [outChannels][inChannels]. Nil when too few are zero.
    init?(_ weights: UnsafeBufferPointer<Float>, inChannels: Int, outChannels: Int) {
        let count = inChannels * outChannels
        precondition(weights.count >= count)
        guard count > 0 else { return nil }
        // Dense layers (every EfficientNet and dlib convolution) stop counting as soon as they
        // have too many nonzeros: a layer without zeros is read about halfway, not to the end.
        let allowedNonzeros = Int((1 - Self.minimumZeroFraction) * Double(count))
        var nonzero = 0
        for weight in weights.prefix(count) where weight != 0 {
            nonzero += 1
            if nonzero > allowedNonzeros { return nil }
        }
        var starts: [Int32] = [0], indices: [Int32] = [], values: [Float] = []
        indices.reserveCapacity(nonzero)
        values.reserveCapacity(nonzero)
        for o in 0..<outChannels {
            for i in 0..<inChannels where weights[o * inChannels + i] != 0 {
                indices.append(Int32(i))
                values.append(weights[o * inChannels + i])
            }
            starts.append(Int32(values.count))
        }
        rowStart = AlignedArray(starts)
        offsets = AlignedArray(count: indices.count) { offsets in
            indices.withUnsafeBufferPointer { cls_sparse_pointwise_offsets($0.baseAddress, $0.count, offsets) }
        }
        self.values = AlignedFloats(values)
        self.inChannels = inChannels
        self.outChannels = outChannels
    }

    /// Floats of scratch `run` needs.
    var scratchCount: Int { Self.maximumTasks * cls_sparse_pointwise_scratch(Int32(inChannels), Int32(outChannels)) }

    /// The convolution over `pixels` rows of `input` into `output` (NHWC, rows packed), clamped
    /// to `lower ... upper`, with an optional residual added and clamped after.
    func run(
        pixels: Int, input: UnsafePointer<Float>, bias: UnsafePointer<Float>?, lower: Float, upper: Float,
        residual: UnsafePointer<Float>?, residualLower: Float, residualUpper: Float, output: UnsafeMutablePointer<Float>,
        scratch: UnsafeMutablePointer<Float>, scratchCount: Int
    ) {
        cls_sparse_pointwise(
            pixels, Int32(outChannels), Int32(inChannels), input, rowStart.base, offsets.base, values.base, bias,
            lower, upper, residual, residualLower, residualUpper, output, scratch, scratchCount)
    }
}
