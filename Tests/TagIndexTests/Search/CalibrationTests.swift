import Testing
@testable import TagIndex

@Suite struct CalibrationTests {
    let curve = [
        CurvePoint(threshold: 0.1, precision: 0.3, recall: 0.99),
        CurvePoint(threshold: 0.3, precision: 0.6, recall: 0.9),
        CurvePoint(threshold: 0.5, precision: 0.8, recall: 0.8),
        CurvePoint(threshold: 0.7, precision: 0.9, recall: 0.5),
        CurvePoint(threshold: 0.9, precision: 0.97, recall: 0.005),
    ]

    @Test func highRecallTakesTheHighestThresholdKeepingRecall() {
        #expect(CalibratedFilter.highRecall.threshold(for: curve) == 0.1)   // recall >= 0.95
        #expect(CalibratedFilter.minimumPrecision(0.1, forRecall: 0.8).threshold(for: curve) == 0.5)
        // A recall stored from a Float (0.95 -> 0.94999998) still counts as 0.95.
        #expect(CalibratedFilter.highRecall.threshold(for: [CurvePoint(threshold: 0.4, precision: 0.5, recall: Double(Float(0.95)))]) == 0.4)
        #expect(CalibratedFilter.minimumPrecision(0.85, forRecall: 0.8).threshold(for: curve) == nil)
        #expect(CalibratedFilter.recall(0.95).threshold(for: curve) == 0.1)
        #expect(CalibratedFilter.recall(1).threshold(for: curve) == nil)
    }

    @Test func highPrecisionTakesTheLowestThresholdReachingPrecision() {
        #expect(CalibratedFilter.highPrecision.threshold(for: curve) == 0.7)
        #expect(CalibratedFilter.minimumRecall(0.6, forPrecision: 0.9).threshold(for: curve) == nil)
        #expect(CalibratedFilter.precision(0.95).threshold(for: curve) == 0.9)
        #expect(CalibratedFilter.minimumRecall(0.01, forPrecision: 0.95).threshold(for: curve) == nil)
    }

    @Test func labelWithoutCurveNeverPasses() {
        #expect(CalibratedFilter.highRecall.threshold(for: nil) == nil)
        #expect(CalibratedFilter.highPrecision.threshold(for: []) == nil)
    }
}
