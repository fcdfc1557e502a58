import Foundation
import Testing
@testable import TagIndex

@Suite struct FeaturePrintTests {
    @Test func halfPrecisionConversionIsExactForKnownValues() {
        let cases: [(Float, UInt16)] = [
            (0, 0x0000), (-0.0, 0x8000), (1, 0x3C00), (-2, 0xC000), (0.5, 0x3800), (65504, 0x7BFF),
            (70000, 0x7C00), (6.1035156e-05, 0x0400), (5.9604645e-08, 0x0001), (1e-9, 0x0000),
            (0.1, 0x2E66), (1.0009766, 0x3C01), (1.00048828125, 0x3C00),  // tie rounds to even
        ]
        for (value, bits) in cases {
            #expect(FeaturePrint.halfBits(value) == bits, "\(value)")
        }
        #expect(FeaturePrint.float(fromHalfBits: 0x3C00) == 1)
        #expect(FeaturePrint.float(fromHalfBits: 0xC000) == -2)
        #expect(FeaturePrint.float(fromHalfBits: 0x0001) == 5.9604645e-08)
        #expect(FeaturePrint.float(fromHalfBits: 0x7C00) == .infinity)
        #expect(FeaturePrint.float(fromHalfBits: 0x2E66) == 0.099975586)
    }

    @Test func roundTripIsUnitLengthWithinHalfPrecision() throws {
        let vector = (0..<FeaturePrint.dimension).map { Float(sin(Double($0) * 0.37)) * 5 }
        let blob = try FeaturePrint.encode(vector)
        #expect(blob.count == 2560)
        let decoded = try #require(FeaturePrint.decode(blob))
        let norm = decoded.reduce(0) { $0 + $1 * $1 }.squareRoot()
        #expect(abs(norm - 1) < 1e-3)
        let scale = 1 / vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let worst = zip(vector, decoded).map { abs($0 * scale - $1) }.max() ?? 1
        #expect(worst < 5e-4)
        #expect(FeaturePrint.decode([1, 2, 3]) == nil)
        #expect(throws: TagIndexError.self) { try FeaturePrint.encode([Float](repeating: .nan, count: 1280)) }
    }
}
