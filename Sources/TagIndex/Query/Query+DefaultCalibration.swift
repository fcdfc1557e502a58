extension Query {
    /// Applies the calibrated high-recall filter when the query sets no threshold of its own and the
    /// index has curves. Without it every label stored down to confidence 0.01 matches its term (a
    /// tennis ball is a little bit of a dog), which is rarely what a person searching means. The
    /// command line and the gallery both start from this default.
    ///
    /// ```swift
    /// try query.applyDefaultCalibration(from: index, onlyWithLabelTerms: true)
    /// ```
    public mutating func applyDefaultCalibration(from index: SQLiteIndex, onlyWithLabelTerms: Bool) throws {
        applyDefaultCalibration(indexHasCalibration: try index.hasCalibration(), onlyWithLabelTerms: onlyWithLabelTerms)
    }

    /// The same default for any backend, given whether its index has curves.
    ///
    /// ```swift
    /// query.applyDefaultCalibration(indexHasCalibration: try await index.hasCalibration(), onlyWithLabelTerms: false)
    /// ```
    public mutating func applyDefaultCalibration(indexHasCalibration: Bool, onlyWithLabelTerms: Bool) {
        guard calibration == nil, minimumConfidence == nil, filters.status != .failed else { return }
        if onlyWithLabelTerms && expression == nil { return }
        if indexHasCalibration { calibration = .highRecall }
    }
}
