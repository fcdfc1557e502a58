import CClassifyKernels
import Foundation

/// What calibration says about one int8 op's input, and how its matrix is made from it.
///
/// Without smoothing the input is quantized per tensor over its calibrated range. With smoothing
/// (SmoothQuant's migration, Xiao et al. 2023) channel c of the input is divided by
/// `s[c] = a[c]^alpha / w[c]^(1 - alpha)` (a: the channel's calibrated absolute extreme; w: the
/// largest |weight| reading it) and the weights multiplied by it, which leaves the product
/// unchanged: channels of small range get finer steps, at the cost of coarser weights.
///
/// Usage: `let matrix = InputCalibration(range: range).matrix(weights: w, outputs: n, inputs: k, bias: b)`
struct InputCalibration: Sendable {
    var range: QuantizationTable.Range
    var channels: QuantizationTable.ChannelRanges?
    /// alpha; nil: no smoothing.
    var smoothing: Float?

    /// The int8 matrix of fp32 weights [outputs][inputs] reading this input.
    func matrix(weights: [Float], outputs: Int, inputs: Int, bias: [Float]) -> QuantizedMatrix {
        weights.withUnsafeBufferPointer { matrix(weights: $0, outputs: outputs, inputs: inputs, bias: bias) }
    }

    /// The same, reading `weights` in place (the mapped weights file).
    func matrix(weights: UnsafeBufferPointer<Float>, outputs: Int, inputs: Int, bias: [Float]) -> QuantizedMatrix {
        guard let alpha = smoothing, let channels, channels.min.count == inputs, channels.max.count == inputs else {
            return QuantizedMatrix(
                weights: weights, outputs: outputs, inputs: inputs, bias: bias, input: ActivationQuantization(range: range.min...range.max))
        }
        var largestWeight = [Float](repeating: 0, count: inputs)
        largestWeight.withUnsafeMutableBufferPointer { cls_weight_column_max_abs(weights.baseAddress, outputs, inputs, $0.baseAddress) }
        var low = Float.infinity, high = -Float.infinity
        let divisors = (0..<inputs).map { c -> Float in
            let extreme = max(abs(channels.min[c]), abs(channels.max[c]))
            guard extreme > 0, largestWeight[c] > 0 else { return 1 }
            let s = pow(extreme, alpha) / pow(largestWeight[c], 1 - alpha)
            return s.isFinite && s > 0 ? s : 1
        }
        for c in 0..<inputs {
            low = min(low, channels.min[c] / divisors[c])
            high = max(high, channels.max[c] / divisors[c])
        }
        return QuantizedMatrix(
            weights: weights, outputs: outputs, inputs: inputs, bias: bias, input: ActivationQuantization(range: low...high),
            smoothing: divisors)
    }
}
