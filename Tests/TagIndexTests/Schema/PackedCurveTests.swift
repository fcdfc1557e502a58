import Testing
@testable import TagIndex

@Suite struct PackedCurveTests {
    @Test func pointsComeBackInThresholdOrderOnePerThreshold() {
        let points = [
            CurvePoint(threshold: 0.5, precision: 0.8, recall: 0.5),
            CurvePoint(threshold: 0.1, precision: 0.3, recall: 1.0),
            CurvePoint(threshold: 0.5, precision: 0.85, recall: 0.45),   // same threshold: the later one stays
            CurvePoint(threshold: 0.9, precision: 1.0, recall: 1e-300),
        ]
        let blob = PackedCurve.pack(points)
        #expect(blob.count == 3 * PackedCurve.bytesPerPoint)
        #expect(PackedCurve.unpack(blob) == [points[1], points[2], points[3]])
    }

    /// Calibration writes its curves in order (the fast path) or from the highest threshold down.
    @Test func sortedAndReversedCurvesComeBackInThresholdOrder() {
        let rising = (0..<50).map { CurvePoint(threshold: Double($0) / 50, precision: Double($0) / 100, recall: 1 - Double($0) / 50) }
        #expect(PackedCurve.unpack(PackedCurve.pack(rising)) == rising)
        #expect(PackedCurve.unpack(PackedCurve.pack(rising.reversed())) == rising)
        let repeated = rising + [CurvePoint(threshold: rising[49].threshold, precision: 0.1, recall: 0.2)]
        #expect(PackedCurve.unpack(PackedCurve.pack(repeated)) == Array(rising.prefix(49)) + [repeated[50]])
    }

    @Test func theLayoutIsLittleEndianDoubles() {
        let blob = PackedCurve.pack([CurvePoint(threshold: 1, precision: 0.5, recall: -2)])
        #expect(Array(blob[0..<8]) == [0, 0, 0, 0, 0, 0, 0xF0, 0x3F])
        #expect(Array(blob[8..<16]) == [0, 0, 0, 0, 0, 0, 0xE0, 0x3F])
        #expect(Array(blob[16..<24]) == [0, 0, 0, 0, 0, 0, 0, 0xC0])
    }

    @Test func emptyAndDamagedBlobs() {
        #expect(PackedCurve.pack([]).isEmpty)
        #expect(PackedCurve.unpack([]).isEmpty)
        let one = PackedCurve.pack([CurvePoint(threshold: 0.2, precision: 0.4, recall: 0.6)])
        #expect(PackedCurve.unpack(one + [1, 2, 3]).count == 1)
        #expect(PackedCurve.unpack(Array(one.prefix(23))).isEmpty)
    }
}
