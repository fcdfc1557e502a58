import ClassifyTestSupport
import CClassifyKernels
import Testing
@testable import Classify

/// The int8 kernels (`cls_quantize_u8`, `cls_qgemm`) against the scalar reference
/// (`QuantizedReferenceKernels`) on every variant: portable C, AVX2 (vpmaddubsw), AVX-VNNI and
/// AVX-512 VNNI, with one and two threads, on odd sizes so every tail runs. The results must be
/// identical to the bit: the integer sums are exact and every variant stores with the same fma.
/// A variant this CPU lacks is skipped, saying so.
@Suite(.serialized)
struct QuantizedKernelTests {
    enum Variant: Int32, CaseIterable, CustomTestStringConvertible, Sendable {
        case portable, avx2, avxVNNI, avx512VNNI
        var testDescription: String { String(cString: cls_int8_variant_name(rawValue)) }

        /// Skips the test case when this CPU cannot run the variant.
        func require() throws {
            if cls_cpu_has_int8_variant(rawValue) == 0 {
                try Test.cancel("int8 \(testDescription) kernels not tested: this CPU/OS lacks \(requirement)")
            }
        }

        var requirement: String {
            switch self {
            case .portable: "nothing"
            case .avx2: "AVX2 and FMA with the OS saving YMM state"
            case .avxVNNI: "AVX-VNNI (cpuid 7.1 EAX bit 4)"
            case .avx512VNNI: "AVX-512F/DQ/BW/VL and AVX512_VNNI (cpuid 7.0 ECX bit 11) with ZMM state enabled"
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var rows: Int, inputs: Int, outputs: Int
        var activation: Activation
        var residual: Activation?
        var seed: UInt64
        /// Whether the input is smoothed per channel (``InputCalibration``).
        var smoothed = false
        var testDescription: String {
            "\(rows)x\(inputs)->\(outputs) \(activation)" + (residual.map { " +add \($0)" } ?? "") + (smoothed ? " smoothed" : "")
                + " seed \(seed)"
        }
    }

    // M tails of every tile height (6, 4, 1 rows), K not a multiple of 4, N tails of 1-15 past a
    // panel and 1-3 panels past a group of 4 (the AVX-512 tile); the classifier (1 x 1280 -> 1000)
    // and Lite0's shapes (49 x 1152 -> 192 with a residual, 169 x 24 -> 144).
    static let cases: [Case] = [
        .init(rows: 91, inputs: 13, outputs: 7, activation: .none, residual: nil, seed: 1),
        .init(rows: 91, inputs: 127, outputs: 19, activation: .relu6, residual: nil, seed: 2),
        .init(rows: 7, inputs: 7, outputs: 40, activation: .relu6, residual: nil, seed: 3),
        .init(rows: 49, inputs: 1152, outputs: 24, activation: .none, residual: Activation.none, seed: 4),
        .init(rows: 13, inputs: 16, outputs: 1000, activation: .relu, residual: nil, seed: 5),
        .init(rows: 169, inputs: 24, outputs: 144, activation: .relu6, residual: nil, seed: 6),
        .init(rows: 11, inputs: 5, outputs: 24, activation: .relu6, residual: .relu, seed: 7),
        .init(rows: 15, inputs: 33, outputs: 88, activation: .none, residual: Activation.none, seed: 8),
        .init(rows: 1, inputs: 1280, outputs: 1000, activation: .none, residual: nil, seed: 9),
        .init(rows: 5, inputs: 3, outputs: 17, activation: .none, residual: .relu6, seed: 10),
        .init(rows: 37, inputs: 64, outputs: 65, activation: .relu6, residual: nil, seed: 11),
        .init(rows: 23, inputs: 1, outputs: 1, activation: .none, residual: nil, seed: 12),
        .init(rows: 49, inputs: 1152, outputs: 192, activation: .none, residual: Activation.none, seed: 13),
        .init(rows: 91, inputs: 13, outputs: 7, activation: .none, residual: nil, seed: 14, smoothed: true),
        .init(rows: 37, inputs: 67, outputs: 33, activation: .relu6, residual: Activation.none, seed: 15, smoothed: true),
        .init(rows: 5, inputs: 1152, outputs: 17, activation: .none, residual: nil, seed: 16, smoothed: true),
        // Large enough that quantizing splits the rows between threads (at least 32,768 values).
        .init(rows: 1001, inputs: 37, outputs: 21, activation: .relu6, residual: nil, seed: 17),
    ]

    static let variantsWithThreads: [(Variant, Int)] = Variant.allCases.flatMap { [($0, 1), ($0, 2)] }

    /// Random weights, inputs spread a little past the calibrated range (so clamping runs), bias
    /// and residual; the activation range is asymmetric so the zero point is not 0.
    static func make(_ c: Case) -> (matrix: QuantizedMatrix, input: [Float], residual: [Float]?) {
        var random = SeededRandom(seed: c.seed)
        let weights = random.floats(c.outputs * c.inputs, in: -0.5...0.5)
        let bias = random.floats(c.outputs, in: -1...1)
        let quantization = ActivationQuantization(range: -1.5...4)
        let smoothing = c.smoothed ? random.floats(c.inputs, in: 0.05...20) : nil
        let matrix = QuantizedMatrix(
            weights: weights, outputs: c.outputs, inputs: c.inputs, bias: bias, input: quantization, smoothing: smoothing)
        let input = random.floats(c.rows * c.inputs, in: -2...5)
        let residual = c.residual == nil ? nil : random.floats(c.rows * c.outputs, in: -3...3)
        return (matrix, input, residual)
    }

    /// Quantizes and multiplies on `variant` with `threads` threads.
    static func run(_ variant: Variant, threads: Int, _ c: Case, matrix: QuantizedMatrix, input: [Float], residual: [Float]?) throws -> (quantized: [UInt8], output: [Float]) {
        let rowBytes = matrix.rowBytes
        var quantized = [UInt8](repeating: 0xAA, count: c.rows * rowBytes)
        var output = [Float](repeating: .nan, count: c.rows * c.outputs)
        let (lower, upper) = c.activation.clampRange
        let (residualLower, residualUpper) = (c.residual ?? .none).clampRange
        try KernelPaths.with(KernelPath.best, threads: threads) {
            input.withUnsafeBufferPointer { x in
                cls_quantize_u8_variant(
                    variant.rawValue, x.baseAddress, c.rows, c.inputs, c.inputs, matrix.multipliers.base,
                    Int32(matrix.input.zeroPoint), &quantized, rowBytes)
            }
            let run = { (res: UnsafePointer<Float>?) in
                cls_qgemm_variant(
                    variant.rawValue, c.rows, c.outputs, c.inputs, quantized, rowBytes, matrix.packed.base, matrix.offsets.base,
                    matrix.scales.base, matrix.bias.base, lower, upper, res, residualLower, residualUpper, &output, c.outputs)
            }
            if let residual { residual.withUnsafeBufferPointer { run($0.baseAddress) } } else { run(nil) }
        }
        // Drop the row padding (set to the zero point) to compare with the reference.
        let unpadded = (0..<c.rows).flatMap { quantized[$0 * rowBytes..<$0 * rowBytes + c.inputs] }
        for r in 0..<c.rows {
            #expect(quantized[r * rowBytes + c.inputs..<(r + 1) * rowBytes].allSatisfy { Int($0) == matrix.input.zeroPoint })
        }
        return (unpadded, output)
    }

    @Test(arguments: cases, variantsWithThreads)
    func matrixMultiplyMatchesReference(_ c: Case, variant: (Variant, Int)) throws {
        try variant.0.require()
        let (matrix, input, residual) = Self.make(c)
        let expectedQuantized = QuantizedReferenceKernels.quantize(input, for: matrix)
        let expected = QuantizedReferenceKernels.matrixMultiply(
            rows: c.rows, quantizedInput: expectedQuantized, matrix: matrix, activation: c.activation,
            residual: residual, residualActivation: c.residual ?? .none)
        let (quantized, output) = try Self.run(variant.0, threads: variant.1, c, matrix: matrix, input: input, residual: residual)
        #expect(quantized == expectedQuantized)
        let mismatches = zip(output, expected).filter { $0.0.bitPattern != $0.1.bitPattern }.count
        #expect(mismatches == 0, "\(mismatches) of \(output.count) outputs differ; first \(zip(output, expected).first { $0.0.bitPattern != $0.1.bitPattern }.map { "\($0)" } ?? "")")
    }

    /// The case vpmaddubsw would get wrong without the split of each activation byte: every
    /// activation 255 and weights at +-127, so a pair sums to +-64770, twice what int16 holds.
    @Test(arguments: variantsWithThreads)
    func extremeProductsDoNotSaturate(variant: (Variant, Int)) throws {
        try variant.0.require()
        let c = Case(rows: 7, inputs: 41, outputs: 21, activation: .none, residual: nil, seed: 0)
        let weights = (0..<c.outputs * c.inputs).map { index -> Float in (index / c.inputs) % 2 == 0 ? 1 : -1 }
        let quantization = ActivationQuantization(scale: 1, zeroPoint: 0)
        let matrix = QuantizedMatrix(weights: weights, outputs: c.outputs, inputs: c.inputs, bias: .init(repeating: 0, count: c.outputs), input: quantization)
        #expect(matrix.weights.allSatisfy { abs($0) == 127 })
        let input = [Float](repeating: 300, count: c.rows * c.inputs)  // quantizes to 255
        let (quantized, output) = try Self.run(variant.0, threads: variant.1, c, matrix: matrix, input: input, residual: nil)
        #expect(quantized.allSatisfy { $0 == 255 })
        for r in 0..<c.rows {
            for j in 0..<c.outputs {
                // 41 * 255 * 127 = 1327785, times the weight scale 1/127.
                let expected = Float(j % 2 == 0 ? 1327785 : -1327785) * (Float(1) / 127)
                #expect(output[r * c.outputs + j] == expected)
            }
        }
    }

    /// Quantization of awkward values: NaN, infinities, huge numbers, halfway cases (round half
    /// to even), on every variant's vector width and tail.
    @Test(arguments: Variant.allCases)
    func quantizationMatchesReference(variant: Variant) throws {
        try variant.require()
        var random = SeededRandom(seed: 99)
        var values = random.floats(61, in: -8...8)
        values += [.nan, .infinity, -.infinity, 1e30, -1e30, 0.5, 1.5, 2.5, -0.5, -1.5, 0, -0.0, 127.5, 128.5]
        let quantization = ActivationQuantization(scale: 1, zeroPoint: 100)
        let rowBytes = cls_qgemm_row_bytes(values.count)
        var quantized = [UInt8](repeating: 0, count: rowBytes)
        let ones = [Float](repeating: 1, count: values.count)
        try KernelPaths.with(KernelPath.best) {
            cls_quantize_u8_variant(variant.rawValue, values, 1, values.count, values.count, ones, 100, &quantized, rowBytes)
        }
        #expect(Array(quantized[..<values.count]) == QuantizedReferenceKernels.quantize(values, quantization))
        #expect(quantized[values.count - 14] == 0)  // NaN
        #expect(Array(quantized[values.count - 9..<values.count]) == [100, 102, 102, 100, 98, 100, 100, 228, 228])
    }

    /// The variant the kernels pick follows the kernel path: avx2 stands for a CPU without VNNI.
    @Test func variantFollowsKernelPath() throws {
        KernelPath.run(on: .portable) { #expect(cls_int8_variant() == Int32(CLS_INT8_PORTABLE)) }
        try KernelPaths.require(.avx2)
        if KernelPath.best == .avx512 {
            KernelPath.run(on: .avx2) { #expect(cls_int8_variant() == Int32(CLS_INT8_AVX2)) }
        }
    }

    @Test func activationRangesIncludeZero() {
        let relu6 = ActivationQuantization(range: 0...6)
        #expect(relu6.zeroPoint == 0 && relu6.scale == 6 / 255)
        let shifted = ActivationQuantization(range: 1...3)  // widened to 0...3
        #expect(shifted.zeroPoint == 0 && shifted.scale == 3 / 255)
        let signed = ActivationQuantization(range: -1...3)
        #expect(signed.zeroPoint == 64)
        let empty = ActivationQuantization(range: 0...0)
        #expect(empty.scale == 1 && empty.zeroPoint == 0)
    }

    @Test func weightsQuantizePerOutputChannel() {
        let (values, scales) = QuantizedMatrix.quantize(weights: [0.6, -1, 0.25, 0, 0, 0, 2, 1.2, -0.01], outputs: 3, inputs: 3)
        #expect(scales == [Float(1) / 127, 1, Float(2) / 127])
        #expect(values == [76, -127, 32, 0, 0, 0, 127, 76, -1])
    }

    /// The C weight quantizer against the plain definition, on odd shapes and several seeds, with
    /// zero, NaN and infinite rows and values halfway between two steps.
    @Test(arguments: [(1, 1), (3, 7), (17, 33), (40, 129)] as [(Int, Int)], [1, 2, 3] as [UInt64])
    func weightQuantizationMatchesItsDefinition(shape: (Int, Int), seed: UInt64) {
        let (outputs, inputs) = shape
        var random = SeededRandom(seed: seed)
        var weights = random.floats(outputs * inputs, in: -3...3)
        if outputs > 2 {
            for i in 0..<inputs { weights[inputs + i] = 0 }  // row 1: all zeros
            weights[2 * inputs] = .nan                         // row 2: one NaN
        }
        if outputs > 3 { weights[3 * inputs] = .infinity }     // row 3: infinite
        if outputs > 4 {                                       // row 4: exact halfway quotients
            for i in 0..<inputs { weights[4 * inputs + i] = Float(i % 5) - 2.5 }
            weights[4 * inputs] = 127
        }
        var expectedValues = [Int8](repeating: 0, count: weights.count)
        var expectedScales = [Float](repeating: 1, count: outputs)
        for j in 0..<outputs {
            let row = weights[j * inputs..<(j + 1) * inputs]
            let largest = row.reduce(Float(0)) { max($0, abs($1)) }
            guard largest > 0, largest.isFinite else { continue }
            let scale = largest / 127
            expectedScales[j] = scale
            for (i, w) in row.enumerated() where !w.isNaN {
                expectedValues[j * inputs + i] = Int8((w / scale).rounded(.toNearestOrEven).clamped(to: -127...127))
            }
        }
        let (values, scales) = QuantizedMatrix.quantize(weights: weights, outputs: outputs, inputs: inputs)
        // NaN weights quantize to 0 (expectedValues keeps 0 there).
        #expect(values == expectedValues, "\(shape), seed \(seed)")
        #expect(scales == expectedScales, "\(shape), seed \(seed)")

        var largest = [Float](repeating: -1, count: inputs)
        cls_weight_column_max_abs(weights, outputs, inputs, &largest)
        let expectedLargest = (0..<inputs).map { i in (0..<outputs).reduce(Float(0)) { max($0, abs(weights[$1 * inputs + i])) } }
        #expect(largest == expectedLargest, "\(shape), seed \(seed)")
    }

    /// Smoothing moves a channel's range into the weights without changing the product: with input
    /// channels of very different ranges (a few wide ones, the rest narrow, as in a residual
    /// stream), the smoothed int8 product is closer to the fp32 one than the plain int8 product.
    @Test(arguments: [21, 22, 23] as [UInt64])
    func smoothingNarrowChannelsBringsTheProductCloserToFloat(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let (rows, inputs, outputs) = (64, 96, 48)
        let weights = random.floats(outputs * inputs, in: -0.5...0.5)
        let bias = [Float](repeating: 0, count: outputs)
        // Channels 0-3 reach +-30, the others +-1.
        let reach = (0..<inputs).map { $0 < 4 ? Float(30) : 1 }
        let input = (0..<rows * inputs).map { index in random.floats(1, in: -1...1)[0] * reach[index % inputs] }
        let channels = QuantizationTable.ChannelRanges(min: reach.map { -$0 }, max: reach)
        let range = QuantizationTable.Range(min: -30, max: 30)
        func error(_ calibration: InputCalibration) -> Float {
            let matrix = calibration.matrix(weights: weights, outputs: outputs, inputs: inputs, bias: bias)
            let output = QuantizedReferenceKernels.matrixMultiply(
                rows: rows, quantizedInput: QuantizedReferenceKernels.quantize(input, for: matrix), matrix: matrix, activation: .none)
            var sum: Float = 0
            for r in 0..<rows {
                for j in 0..<outputs {
                    var exact: Float = 0
                    for c in 0..<inputs { exact += input[r * inputs + c] * weights[j * inputs + c] }
                    sum += (output[r * outputs + j] - exact) * (output[r * outputs + j] - exact)
                }
            }
            return sum
        }
        let plain = error(InputCalibration(range: range))
        let smoothed = error(InputCalibration(range: range, channels: channels, smoothing: 0.35))
        #expect(smoothed < plain / 2, "squared error \(smoothed) smoothed against \(plain) plain")
    }
}
