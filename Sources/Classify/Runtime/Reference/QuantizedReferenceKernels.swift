/// Plain scalar int8 arithmetic: the truth the int8 kernels (`cls_quantize_u8`, `cls_qgemm` on
/// every variant) are tested against. Reads the weights unpacked, [outputs][inputs], and keeps
/// the zero point inside the sum, sum (q - z) w, rather than folding it out as the kernels do, so a
/// test against it also checks the packing and the offsets. Never used for inference.
enum QuantizedReferenceKernels {
    /// q = clamp(round_even(x / scale) + zeroPoint, 0, 255), with x / scale computed as
    /// x * (1 / scale) in Float and held in -512...512 first (NaN counts as -512).
    static func quantize(_ values: [Float], _ quantization: ActivationQuantization) -> [UInt8] {
        quantize(values, multipliers: [quantization.inverseScale], zeroPoint: quantization.zeroPoint)
    }

    /// The input of `matrix` quantized as its op does: value i of each row (of `matrix.inputs`
    /// values) times its channel's multiplier, 1 / (scale * s[i]).
    static func quantize(_ values: [Float], for matrix: QuantizedMatrix) -> [UInt8] {
        let smoothing = matrix.smoothing ?? [1]
        return quantize(values, multipliers: smoothing.map { matrix.input.inverseScale / $0 }, zeroPoint: matrix.input.zeroPoint)
    }

    /// q[i] = clamp(round_even(x[i] * multipliers[i % count]) + zeroPoint, 0, 255).
    static func quantize(_ values: [Float], multipliers: [Float], zeroPoint: Int) -> [UInt8] {
        values.enumerated().map { index, x in
            var scaled = x * multipliers[index % multipliers.count]
            if scaled.isNaN || scaled < -512 { scaled = -512 }
            if scaled > 512 { scaled = 512 }
            return UInt8((Int(scaled.rounded(.toNearestOrEven)) + zeroPoint).clamped(to: 0...255))
        }
    }

    /// out[r][j] = clamp(fma(float(sum_i (q[r][i] - zeroPoint) * w[j][i]), inputScale * weightScale[j], bias[j]))
    /// and then, with a residual, clamp(out + residual[r][j]) with `residualActivation`.
    static func matrixMultiply(
        rows: Int, quantizedInput: [UInt8], matrix: QuantizedMatrix, activation: Activation,
        residual: [Float]? = nil, residualActivation: Activation = .none
    ) -> [Float] {
        let (k, n) = (matrix.inputs, matrix.outputs)
        let (lower, upper) = activation.clampRange
        let (residualLower, residualUpper) = residualActivation.clampRange
        let bias = Array(UnsafeBufferPointer(start: matrix.bias.base, count: n))
        var output = [Float](repeating: 0, count: rows * n)
        for r in 0..<rows {
            for j in 0..<n {
                var sum: Int32 = 0
                for i in 0..<k {
                    sum += (Int32(quantizedInput[r * k + i]) - Int32(matrix.input.zeroPoint)) * Int32(matrix.weights[j * k + i])
                }
                var value = bias[j].addingProduct(Float(sum), matrix.input.scale * matrix.weightScales[j])
                value = min(max(value, lower), upper)
                if let residual {
                    value = min(max(value + residual[r * n + j], residualLower), residualUpper)
                }
                output[r * n + j] = value
            }
        }
        return output
    }
}
