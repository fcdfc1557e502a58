import Testing
@testable import Classify

/// The filter semantics on hand-made curves, including the edges.
struct PrecisionRecallCurveTests {
    // threshold:   0.1   0.3   0.5   0.7   0.9
    // precision:   0.2   0.5   0.8   0.95  1.0
    // recall:      1.0   0.9   0.7   0.4   0.1
    let curve = PrecisionRecallCurve(points: [
        .init(threshold: 0.9, precision: 1.0, recall: 0.1),
        .init(threshold: 0.1, precision: 0.2, recall: 1.0),
        .init(threshold: 0.5, precision: 0.8, recall: 0.7),
        .init(threshold: 0.3, precision: 0.5, recall: 0.9),
        .init(threshold: 0.7, precision: 0.95, recall: 0.4),
    ])

    func observation(_ confidence: Float, curve: PrecisionRecallCurve?) -> ClassificationObservation {
        ClassificationObservation(identifier: "x", confidence: confidence, displayName: "x", precisionRecallCurve: curve)
    }

    @Test func pointsAreSortedByThreshold() {
        #expect(curve.points.map(\.threshold) == [0.1, 0.3, 0.5, 0.7, 0.9])
    }

    @Test func minimumPrecisionForRecallUsesTheHighestThresholdReachingTheRecall() {
        // recall >= 0.8: points at 0.1 and 0.3; the highest threshold is 0.3 (precision 0.5).
        #expect(observation(0.3, curve: curve).hasMinimumPrecision(0.5, forRecall: 0.8))
        #expect(!observation(0.29, curve: curve).hasMinimumPrecision(0.5, forRecall: 0.8))   // below the threshold
        #expect(!observation(0.95, curve: curve).hasMinimumPrecision(0.6, forRecall: 0.8))   // precision there too low
        // r = 0: every point qualifies; the highest threshold (0.9) has precision 1.
        #expect(observation(0.9, curve: curve).hasMinimumPrecision(1.0, forRecall: 0))
        #expect(!observation(0.89, curve: curve).hasMinimumPrecision(0.1, forRecall: 0))
        // r = 1: only the lowest point.
        #expect(observation(0.1, curve: curve).hasMinimumPrecision(0.2, forRecall: 1))
        #expect(!observation(0.1, curve: curve).hasMinimumPrecision(0.21, forRecall: 1))
        // Recall above anything on the curve: false.
        #expect(!observation(1, curve: PrecisionRecallCurve(points: [.init(threshold: 0.5, precision: 1, recall: 0.5)])).hasMinimumPrecision(0, forRecall: 0.6))
    }

    @Test func minimumRecallForPrecisionUsesTheLowestThresholdReachingThePrecision() {
        // precision >= 0.8: points at 0.5, 0.7, 0.9; the lowest threshold is 0.5 (recall 0.7).
        #expect(observation(0.5, curve: curve).hasMinimumRecall(0.7, forPrecision: 0.8))
        #expect(!observation(0.49, curve: curve).hasMinimumRecall(0.7, forPrecision: 0.8))
        #expect(!observation(0.99, curve: curve).hasMinimumRecall(0.71, forPrecision: 0.8))
        // Precision 1 only at 0.9 (recall 0.1).
        #expect(observation(0.9, curve: curve).hasMinimumRecall(0.1, forPrecision: 1))
        #expect(!observation(0.9, curve: curve).hasMinimumRecall(0.2, forPrecision: 1))
        // Unreachable precision: false whatever the confidence.
        let capped = PrecisionRecallCurve(points: [.init(threshold: 0.2, precision: 0.6, recall: 0.9), .init(threshold: 0.8, precision: 0.7, recall: 0.3)])
        #expect(!observation(1, curve: capped).hasMinimumRecall(0, forPrecision: 0.71))
    }

    @Test func onePointAndEmptyCurves() {
        let one = PrecisionRecallCurve(points: [.init(threshold: 0.4, precision: 0.9, recall: 0.6)])
        #expect(observation(0.4, curve: one).hasMinimumPrecision(0.9, forRecall: 0.6))
        #expect(observation(0.4, curve: one).hasMinimumRecall(0.6, forPrecision: 0.9))
        #expect(!observation(0.39, curve: one).hasMinimumRecall(0.6, forPrecision: 0.9))
        #expect(!observation(0.4, curve: one).hasMinimumPrecision(0.9, forRecall: 0.61))
        let empty = PrecisionRecallCurve(points: [])
        #expect(!observation(1, curve: empty).hasMinimumPrecision(0, forRecall: 0))
        #expect(!observation(1, curve: empty).hasMinimumRecall(0, forPrecision: 0))
    }

    @Test func withoutACurveBothTestsAreFalse() {
        let bare = observation(1, curve: nil)
        #expect(!bare.hasPrecisionRecallCurve)
        #expect(!bare.hasMinimumPrecision(0, forRecall: 0))
        #expect(!bare.hasMinimumRecall(0, forPrecision: 0))
        #expect(!ObservationFilter.highRecall.keeps(bare) && !ObservationFilter.highPrecision.keeps(bare))
        #expect(ObservationFilter.none.keeps(bare) && ObservationFilter.minimumConfidence(1).keeps(bare))
    }
}

/// Curves built from scored, labelled samples.
struct CalibrationBuilderTests {
    @Test func curveHasAPointAtEachPositiveScore() {
        // Scores (positive?): 0.9 +, 0.8 -, 0.7 +, 0.4 -, 0.3 +, 0.1 -
        let pairs: [(score: Float, positive: Bool)] = [(0.9, true), (0.8, false), (0.7, true), (0.4, false), (0.3, true), (0.1, false)]
        let points = CalibrationBuilder.curve(pairs, maximumPoints: 64)
        #expect(points.map(\.threshold) == [0.3, 0.7, 0.9])
        #expect(points.map(\.precision) == [3.0 / 5, 2.0 / 3, 1])
        #expect(points.map(\.recall) == [1, 2.0 / 3, 1.0 / 3])
    }

    @Test func tiesAreKeptTogether() {
        let points = CalibrationBuilder.curve([(0.5, true), (0.5, false), (0.5, false), (0.2, true)], maximumPoints: 64)
        #expect(points.first { $0.threshold == 0.5 }?.precision == 1.0 / 3)
    }

    @Test func thinningKeepsBothEnds() {
        let pairs = (0..<500).map { (Float($0) / 500, $0 % 2 == 0) }
        let points = CalibrationBuilder.curve(pairs, maximumPoints: 10)
        #expect(points.count == 10)
        #expect(points.first?.recall == 1)
        #expect(points.last?.threshold == 0.996)
    }

    @Test func labelsWithFewPositivesUseThePooledCurve() throws {
        let taxonomy = TaxonomyTests.taxonomy
        var builder = CalibrationBuilder(taxonomy: taxonomy, minimumPositives: 3)
        let golden = try #require(taxonomy.label("golden_retriever"))
        let tabby = try #require(taxonomy.label("tabby"))
        for index in 0..<4 {
            var probabilities = [Float](repeating: 0, count: 1000)
            probabilities[golden.classIndex!] = 0.6 + Float(index) * 0.1
            probabilities[tabby.classIndex!] = 0.4 - Float(index) * 0.1
            builder.add(probabilities: probabilities, trueLabel: golden.index)
        }
        let file = builder.build(model: "m", modelVersion: "1", source: .init(description: "t", imageCount: 4, failedCount: 0, createdBy: "test"))
        #expect(file.positiveCounts["golden_retriever"] == 4 && file.positiveCounts["dog"] == 4)
        #expect(file.labels["golden_retriever"] != nil && file.labels["dog"] != nil)
        #expect(file.labels["tabby"] == nil && file.labels["cat"] == nil)
        #expect(file.curve(for: "tabby", isLeaf: true).isPooled)
        #expect(!file.curve(for: "dog", isLeaf: false).isPooled)
        #expect(file.labels["dog"]?.points.last?.precision == 1)
    }
}
