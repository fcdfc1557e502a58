import CClassifyKernels

/// A weight matrix in int8 with one scale per output channel, packed for the int8 kernels
/// (`cls_qgemm`), together with what its store needs: y = clamp(W x + b) computed as
/// `fma(float(sum q w - zeroPoint * sum w), inputScale * weightScale, bias)` from uint8 inputs.
///
/// Weights are symmetric (no zero point) in -127...127: the scale of output channel j is
/// max |w[j][.]| / 127. The zero point of the input tensor, known at load, is folded into one
/// int32 per channel (`offsets`).
///
/// Usage: `let matrix = QuantizedMatrix(weights: w, outputs: n, inputs: k, bias: b, input: quantization)`
struct QuantizedMatrix: Sendable {
    let inputs: Int
    let outputs: Int
    let input: ActivationQuantization
    /// The int8 weights, [outputs][inputs] (kept for the reference and the tests).
    let weights: [Int8]
    let weightScales: [Float]
    let packed: AlignedArray<Int8>
    let offsets: AlignedArray<Int32>
    /// input.scale * weightScales[j].
    let scales: AlignedArray<Float>
    let bias: AlignedArray<Float>
    /// What `cls_quantize_u8` multiplies input channel c by: 1 / (input.scale * s[c]), where s[c]
    /// is the channel's smoothing factor (1 without smoothing; the weights carry s[c]).
    let multipliers: AlignedArray<Float>
    /// s[c] per input channel; nil when the input is not smoothed.
    let smoothing: [Float]?

    /// - Parameters:
    ///   - weights: [outputs][inputs], fp32.
    ///   - smoothing: s[c] per input channel (see `InputCalibration`), or nil.
    init(weights: [Float], outputs: Int, inputs: Int, bias: [Float], input: ActivationQuantization, smoothing: [Float]? = nil) {
        self = weights.withUnsafeBufferPointer { weights in
            QuantizedMatrix(weights: weights, outputs: outputs, inputs: inputs, bias: bias, input: input, smoothing: smoothing)
        }
    }

    /// - Parameter weights: as above, read in place (the mapped weights file); with smoothing the
    ///   scaled copy is made one matrix at a time.
    init(weights: UnsafeBufferPointer<Float>, outputs: Int, inputs: Int, bias: [Float], input: ActivationQuantization, smoothing: [Float]? = nil) {
        precondition(weights.count == outputs * inputs && bias.count == outputs)
        let (values, scales): ([Int8], [Float])
        if let smoothing {
            precondition(smoothing.count == inputs)
            let scaled = [Float](unsafeUninitializedCapacity: outputs * inputs) { scaled, initialized in
                smoothing.withUnsafeBufferPointer { smoothing in
                    for j in 0..<outputs { for c in 0..<inputs { scaled[j * inputs + c] = weights[j * inputs + c] * smoothing[c] } }
                }
                initialized = outputs * inputs
            }
            (values, scales) = scaled.withUnsafeBufferPointer { Self.quantize(weights: $0, outputs: outputs, inputs: inputs) }
        } else {
            (values, scales) = Self.quantize(weights: weights, outputs: outputs, inputs: inputs)
        }
        self.init(
            quantizedWeights: values, weightScales: scales, outputs: outputs, inputs: inputs, bias: bias, input: input,
            smoothing: smoothing)
    }

    /// From already quantized weights [outputs][inputs] and their per-channel scales.
    init(
        quantizedWeights: [Int8], weightScales: [Float], outputs: Int, inputs: Int, bias: [Float], input: ActivationQuantization,
        smoothing: [Float]? = nil
    ) {
        precondition(quantizedWeights.count == outputs * inputs && weightScales.count == outputs && bias.count == outputs)
        self.inputs = inputs
        self.outputs = outputs
        self.input = input
        self.weights = quantizedWeights
        self.weightScales = weightScales
        packed = AlignedArray(count: cls_qgemm_packed_bytes(inputs, outputs)) { packed in
            quantizedWeights.withUnsafeBufferPointer { cls_qgemm_pack_weights($0.baseAddress, inputs, outputs, packed) }
        }
        offsets = quantizedWeights.withUnsafeBufferPointer { values in
            AlignedArray((0..<outputs).map { j in
                var sum: Int32 = 0
                for w in values[j * inputs..<(j + 1) * inputs] { sum += Int32(w) }
                return Int32(input.zeroPoint) * sum
            })
        }
        self.scales = AlignedArray(weightScales.map { input.scale * $0 })
        self.bias = AlignedArray(bias)
        self.smoothing = smoothing
        multipliers = AlignedArray((0..<inputs).map { c in input.inverseScale / (smoothing?[c] ?? 1) })
    }

    /// Symmetric per-output-channel quantization of [outputs][inputs] weights.
    static func quantize(weights: [Float], outputs: Int, inputs: Int) -> (values: [Int8], scales: [Float]) {
        weights.withUnsafeBufferPointer { quantize(weights: $0, outputs: outputs, inputs: inputs) }
    }

    /// The same, reading `weights` in place.
    static func quantize(weights: UnsafeBufferPointer<Float>, outputs: Int, inputs: Int) -> (values: [Int8], scales: [Float]) {
        precondition(weights.count == outputs * inputs)
        var scales = [Float](repeating: 1, count: outputs)
        let values = [Int8](unsafeUninitializedCapacity: weights.count) { values, initialized in
            scales.withUnsafeMutableBufferPointer { scales in
                cls_quantize_weights(weights.baseAddress, outputs, inputs, values.baseAddress, scales.baseAddress)
            }
            initialized = weights.count
        }
        return (values, scales)
    }

    /// Bytes of one quantized input row (inputs rounded up to 4).
    var rowBytes: Int { cls_qgemm_row_bytes(inputs) }

    /// Floats of scratch `rows` quantized input rows take.
    func scratchCount(rows: Int) -> Int { (rows * rowBytes + 3) / 4 }

    /// output[r][j] for `rows` rows of `source` (row stride `inputs` floats): quantizes the rows
    /// into `scratch`, then runs the int8 GEMM with the clamp and optional residual in its store.
    func run(
        rows: Int, source: UnsafePointer<Float>, activation: Activation, residual: UnsafePointer<Float>?,
        residualActivation: Activation, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
    ) {
        let quantized = UnsafeMutableRawPointer(scratch).assumingMemoryBound(to: UInt8.self)
        cls_quantize_u8(source, rows, inputs, inputs, multipliers.base, Int32(input.zeroPoint), quantized, rowBytes)
        run(rows: rows, quantized: quantized, activation: activation, residual: residual, residualActivation: residualActivation, output: output)
    }

    /// The same from rows already quantized (`rowBytes` apart, as `cls_quantize_u8` writes them
    /// with `multipliers` and the input's zero point).
    func run(
        rows: Int, quantized: UnsafePointer<UInt8>, activation: Activation, residual: UnsafePointer<Float>?,
        residualActivation: Activation, output: UnsafeMutablePointer<Float>
    ) {
        let (lower, upper) = activation.clampRange
        let (residualLower, residualUpper) = residualActivation.clampRange
        cls_qgemm(
            rows, outputs, inputs, quantized, rowBytes, packed.base, offsets.base, scales.base, bias.base,
            lower, upper, residual, residualLower, residualUpper, output, outputs)
    }
}
