extension CalibratedFilter {
    /// The threshold a search or an export puts on a label: the calibrated one, or 1 for a label the
    /// filter never passes (no curve, as every user label; or a curve that never reaches the
    /// filter's point), so that a label a person added (confidence 1) passes every filter.
    ///
    /// ```swift
    /// let threshold = CalibratedFilter.highPrecision.thresholdKeepingCorrections(for: curve)
    /// ```
    public func thresholdKeepingCorrections(for curve: [CurvePoint]?) -> Double {
        threshold(for: curve) ?? 1
    }
}
