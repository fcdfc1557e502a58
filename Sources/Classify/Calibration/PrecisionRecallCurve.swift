/// How precise and how complete a label's predictions are at each confidence threshold,
/// measured on labelled photos (`classify-tool calibrate`).
///
/// Points are sorted by ascending threshold; raising the threshold trades recall for precision.
///
/// ```swift
/// let point = curve.operatingPoint(minimumRecall: 0.8)   // highest threshold keeping 80% recall
/// ```
public struct PrecisionRecallCurve: Sendable, Hashable, Codable {
    /// One operating point: keep the label when its confidence is at least `threshold`.
    public struct Point: Sendable, Hashable, Codable {
        public var threshold: Float
        public var precision: Float
        public var recall: Float

        public init(threshold: Float, precision: Float, recall: Float) {
            self.threshold = threshold
            self.precision = precision
            self.recall = recall
        }
    }

    /// Operating points, ascending by threshold.
    public var points: [Point]
    /// True when this label had too few positives for its own curve and uses the pooled curve of
    /// its kind (all leaves, or all parents).
    public var isPooled: Bool

    public init(points: [Point], isPooled: Bool = false) {
        self.points = points.sorted { $0.threshold < $1.threshold }
        self.isPooled = isPooled
    }

    /// The point with the highest threshold whose recall is at least `recall`, if any.
    public func operatingPoint(minimumRecall recall: Float) -> Point? {
        points.last { $0.recall >= recall }
    }

    /// The point with the lowest threshold whose precision is at least `precision`, if any.
    public func operatingPoint(minimumPrecision precision: Float) -> Point? {
        points.first { $0.precision >= precision }
    }

    /// `hasMinimumPrecision` semantics: see `ClassificationObservation.hasMinimumPrecision(_:forRecall:)`.
    public func accepts(confidence: Float, minimumPrecision precision: Float, forRecall recall: Float) -> Bool {
        guard let point = operatingPoint(minimumRecall: recall) else { return false }
        return point.precision >= precision && confidence >= point.threshold
    }

    /// `hasMinimumRecall` semantics: see `ClassificationObservation.hasMinimumRecall(_:forPrecision:)`.
    public func accepts(confidence: Float, minimumRecall recall: Float, forPrecision precision: Float) -> Bool {
        guard let point = operatingPoint(minimumPrecision: precision) else { return false }
        return point.recall >= recall && confidence >= point.threshold
    }
}
