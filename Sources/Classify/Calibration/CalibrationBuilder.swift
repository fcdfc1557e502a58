/// Builds precision/recall curves from classified, labelled images.
///
/// An image is a positive for its true label and every ancestor of it. A label with at least
/// `minimumPositives` positives gets its own curve; the others share the pooled curve of their
/// kind (leaves, parents). Curves have a point at every confidence where a positive is found,
/// thinned to at most `maximumPoints`.
///
/// ```swift
/// var builder = CalibrationBuilder(taxonomy: model.labelSet.taxonomy)
/// builder.add(probabilities: output.probabilities, trueLabel: image.labelIndex)
/// let calibration = builder.build(model: "efficientnet-lite0", modelVersion: "1", source: source)
/// ```
public struct CalibrationBuilder: Sendable {
    /// Default for `minimumPositives`: below about ten positives a curve's precision steps are
    /// too coarse (each positive moves recall by 10% or more) to pick operating points from.
    public static let defaultMinimumPositives = 10

    public let taxonomy: LabelTaxonomy
    public var minimumPositives: Int
    public var maximumPoints: Int
    /// Per image: every label's confidence, and the true label set.
    private(set) var samples: [(confidences: [Float], truth: Set<Int>)] = []

    public init(taxonomy: LabelTaxonomy, minimumPositives: Int = defaultMinimumPositives, maximumPoints: Int = 64) {
        self.taxonomy = taxonomy
        self.minimumPositives = minimumPositives
        self.maximumPoints = maximumPoints
    }

    /// Number of images added.
    public var imageCount: Int { samples.count }

    /// Adds one classified image whose true label is `trueLabel` (a taxonomy index).
    public mutating func add(probabilities: [Float], trueLabel: Int) {
        samples.append((taxonomy.confidences(probabilities: probabilities), truthSet(of: trueLabel)))
    }

    /// The label and all of its ancestors.
    func truthSet(of label: Int) -> Set<Int> {
        var truth: Set<Int> = [], stack = [label]
        while let current = stack.popLast() {
            guard truth.insert(current).inserted else { continue }
            stack.append(contentsOf: taxonomy.labels[current].parents.compactMap { taxonomy.label($0)?.index })
        }
        return truth
    }

    public func build(model: String, modelVersion: String, source: CalibrationFile.Source) -> CalibrationFile {
        var positiveCounts: [String: Int] = [:]
        var own: [String: CalibrationFile.LabelCurve] = [:]
        var pooledLeaf: [(Float, Bool)] = [], pooledParent: [(Float, Bool)] = []
        for label in taxonomy.labels {
            let pairs = samples.map { ($0.confidences[label.index], $0.truth.contains(label.index)) }
            let positives = pairs.lazy.filter(\.1).count
            if positives > 0 { positiveCounts[label.identifier] = positives }
            if positives >= minimumPositives {
                own[label.identifier] = .init(positives: positives, points: Self.curve(pairs, maximumPoints: maximumPoints))
            }
            if label.isLeaf { pooledLeaf += pairs } else { pooledParent += pairs }
        }
        return CalibrationFile(
            model: model, modelVersion: modelVersion, source: source, minimumPositives: minimumPositives,
            pooledLeafCurve: Self.curve(pooledLeaf, maximumPoints: maximumPoints),
            pooledParentCurve: Self.curve(pooledParent, maximumPoints: maximumPoints),
            labels: own, positiveCounts: positiveCounts)
    }

    /// Precision and recall at each distinct confidence held by a positive, ascending by threshold.
    static func curve(_ pairs: [(score: Float, positive: Bool)], maximumPoints: Int) -> [PrecisionRecallCurve.Point] {
        let total = pairs.lazy.filter(\.positive).count
        guard total > 0 else { return [] }
        let sorted = pairs.sorted { $0.score > $1.score }
        var points: [PrecisionRecallCurve.Point] = []
        var truePositives = 0, kept = 0, index = 0
        while index < sorted.count {
            let score = sorted[index].score
            var sawPositive = false
            // Everything tied at this score is kept together by a threshold at `score`.
            while index < sorted.count, sorted[index].score == score {
                kept += 1
                if sorted[index].positive { truePositives += 1; sawPositive = true }
                index += 1
            }
            if sawPositive {
                points.append(.init(threshold: score, precision: Float(truePositives) / Float(kept), recall: Float(truePositives) / Float(total)))
            }
        }
        points.reverse()
        return thin(points, to: maximumPoints)
    }

    /// Keeps at most `limit` points spread evenly over recall, always keeping both ends.
    static func thin(_ points: [PrecisionRecallCurve.Point], to limit: Int) -> [PrecisionRecallCurve.Point] {
        guard points.count > limit, limit >= 2 else { return points }
        var chosen: [Int] = []
        for step in 0..<limit {
            let target = Double(step) / Double(limit - 1) * Double(points.count - 1)
            let index = Int(target.rounded())
            if chosen.last != index { chosen.append(index) }
        }
        return chosen.map { points[$0] }
    }
}

/// How a filter behaves on labelled images: averaged over the photos, how many labels it keeps
/// and their precision and recall against the true label and its ancestors.
///
/// ```swift
/// let report = FilterEvaluation.measure(.highPrecision, samples: samples, labelSet: labelSet)
/// ```
public struct FilterEvaluation: Sendable, Codable {
    public var filter: String
    public var meanLabelsKept: Double
    /// Mean over photos that kept at least one label.
    public var meanPrecision: Double
    public var meanRecall: Double
    /// Photos that kept no label at all.
    public var photosWithNoLabel: Int

    /// Measures `filter` on images given as (probabilities, true label).
    public static func measure(_ filter: ObservationFilter, name: String, samples: [(probabilities: [Float], trueLabel: Int)], labelSet: LabelSet) -> FilterEvaluation {
        let builder = CalibrationBuilder(taxonomy: labelSet.taxonomy)
        var kept = 0.0, precisionSum = 0.0, recallSum = 0.0, withLabels = 0, empty = 0
        for sample in samples {
            let truth = builder.truthSet(of: sample.trueLabel)
            let truthIdentifiers = Set(truth.map { labelSet.taxonomy.labels[$0].identifier })
            let keptObservations = filter.apply(to: labelSet.observations(probabilities: sample.probabilities))
            let correct = keptObservations.filter { truthIdentifiers.contains($0.identifier) }.count
            kept += Double(keptObservations.count)
            recallSum += Double(correct) / Double(truth.count)
            if keptObservations.isEmpty { empty += 1 } else {
                withLabels += 1
                precisionSum += Double(correct) / Double(keptObservations.count)
            }
        }
        let count = Double(max(samples.count, 1))
        return FilterEvaluation(
            filter: name, meanLabelsKept: kept / count, meanPrecision: withLabels > 0 ? precisionSum / Double(withLabels) : 0,
            meanRecall: recallSum / count, photosWithNoLabel: empty)
    }
}
