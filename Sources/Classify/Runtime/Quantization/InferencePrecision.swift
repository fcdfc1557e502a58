import CClassifyKernels

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
}
