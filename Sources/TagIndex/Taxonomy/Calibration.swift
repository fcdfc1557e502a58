/// A calibrated filter: a label passes when its confidence reaches a threshold
/// read from the label's precision/recall curve. A label without a curve never
/// passes.
///
/// - ``minimumPrecision(_:forRecall:)``: take the curve point with the highest
///   threshold whose recall >= r; the label passes when precision there >= p and
///   confidence >= that threshold.
/// - ``minimumRecall(_:forPrecision:)``: take the point with the lowest threshold
///   whose precision >= p; the label passes when recall there >= r and
///   confidence >= that threshold.
///
/// ```swift
/// var query = try Query(parsing: "dog")
/// query.calibration = .highPrecision
/// ```
public enum CalibratedFilter: Sendable, Hashable {
    /// `hasMinimumPrecision(p, forRecall: r)`.
    case minimumPrecision(Double, forRecall: Double)
    /// `hasMinimumRecall(r, forPrecision: p)`.
    case minimumRecall(Double, forPrecision: Double)

    /// High recall: minimum precision 0.1 for recall 0.95. (Vision's sample uses recall 0.8; on
    /// EfficientNet-Lite0's curves that point sits so high that it kept fewer labels than the
    /// high-precision filter; Classify's `ObservationFilter.highRecall` uses the same 0.95.)
    ///
    /// ```swift
    /// query.calibration = .highRecall
    /// ```
    public static let highRecall = CalibratedFilter.minimumPrecision(0.1, forRecall: 0.95)
    /// High precision: minimum recall 0.01 for precision 0.9.
    ///
    /// ```swift
    /// query.calibration = .highPrecision
    /// ```
    public static let highPrecision = CalibratedFilter.minimumRecall(0.01, forPrecision: 0.9)

    /// Precision at least `p` (any recall): the lowest threshold reaching it.
    ///
    /// ```swift
    /// query.calibration = .precision(0.95)
    /// ```
    public static func precision(_ p: Double) -> CalibratedFilter { .minimumRecall(0, forPrecision: p) }

    /// Recall at least `r` (any precision): the highest threshold keeping it.
    ///
    /// ```swift
    /// query.calibration = .recall(0.9)
    /// ```
    public static func recall(_ r: Double) -> CalibratedFilter { .minimumPrecision(0, forRecall: r) }

    /// The threshold this filter puts on a label with `curve`, or nil ("never passes").
    ///
    /// ```swift
    /// let threshold = CalibratedFilter.highPrecision.threshold(for: curve)
    /// ```
    public func threshold(for curve: [CurvePoint]?) -> Double? {
        guard let curve, !curve.isEmpty else { return nil }
        // Curves usually come from 32-bit floats (Classify's calibration): 0.95 stored as a Float
        // reads back as 0.94999998. The tolerance makes `recall >= 0.95` mean what it says.
        let tolerance = 1e-6
        switch self {
        case .minimumPrecision(let precision, let recall):
            guard let point = curve.filter({ $0.recall >= recall - tolerance }).max(by: { $0.threshold < $1.threshold }),
                point.precision >= precision - tolerance
            else { return nil }
            return point.threshold
        case .minimumRecall(let recall, let precision):
            guard let point = curve.filter({ $0.precision >= precision - tolerance }).min(by: { $0.threshold < $1.threshold }),
                point.recall >= recall - tolerance
            else { return nil }
            return point.threshold
        }
    }
}
