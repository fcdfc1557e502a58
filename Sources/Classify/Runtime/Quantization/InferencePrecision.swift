import CClassifyKernels
import Foundation

/// The arithmetic a loaded classifier runs in.
///
/// - `fp32`: every op in 32-bit floats; the parity path, checked against the reference
///   implementation's golden outputs.
/// - `int8`: the pointwise convolutions and the classifier in 8-bit integers (uint8 activations
///   with the ranges calibrated in `quantization.json`, per-channel int8 weights, int32 sums); the
///   stem, depthwise convolutions, pooling and softmax stay fp32. Needs `quantization.json` in the
///   model directory.
///
/// Usage: `let model = try ImageClassifierModel(contentsOf: directory, precision: .int8)`
public enum InferencePrecision: String, Sendable, CaseIterable {
    case fp32, int8

    /// True when this CPU has an int8 dot-product instruction (AVX-512 VNNI or AVX-VNNI), where the
    /// int8 kernels are fastest; without it they run on AVX2's vpmaddubsw (or portable C).
    ///
    /// Usage: `if InferencePrecision.cpuHasVNNI { ... }`
    public static var cpuHasVNNI: Bool {
        cls_cpu_has_int8_variant(Int32(CLS_INT8_AVX512_VNNI)) != 0 || cls_cpu_has_int8_variant(Int32(CLS_INT8_AVX_VNNI)) != 0
    }

    /// The environment variable that sets ``preferred(forModelAt:environment:)``'s answer
    /// (`fp32` or `int8`), as `CLASSIFY_KERNELS` sets the kernel path.
    public static let environmentVariable = "CLASSIFY_PRECISION"

    /// The precision `classify-tool` runs when none is asked for: `CLASSIFY_PRECISION` when set;
    /// else int8 where this CPU has VNNI and the model directory has `quantization.json` (on the
    /// 500 calibration photos int8 keeps top-1 within 0.5 point of fp32 and agrees with it on 98%
    /// of them, at about half the latency), fp32 elsewhere: without VNNI the int8 kernels are
    /// slower than fp32's. The library's own default stays fp32, the path checked against the
    /// reference implementation.
    ///
    /// Usage: `let model = try ImageClassifierModel(contentsOf: dir, precision: .preferred(forModelAt: dir))`
    public static func preferred(
        forModelAt directory: URL, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> InferencePrecision {
        if let chosen = environment[environmentVariable].flatMap(InferencePrecision.init(rawValue:)) { return chosen }
        return cpuHasVNNI && FileManager.default.fileExists(atPath: directory.appending(path: QuantizationTable.fileName).path) ? .int8 : .fp32
    }
}
