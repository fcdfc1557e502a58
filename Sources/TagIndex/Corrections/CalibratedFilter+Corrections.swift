import GRDB

extension CalibratedFilter {
    /// The threshold a search or an export puts on a label: the calibrated one; for a label the
    /// filter never passes (no curve, as every user label, or a curve that never reaches the
    /// filter's point), 1 where a person added it (so it passes at its confidence of 1), else nil.
    ///
    /// ```swift
    /// let threshold = CalibratedFilter.highPrecision.thresholdKeepingCorrections(for: curve, added: true)
    /// ```
    public func thresholdKeepingCorrections(for curve: [CurvePoint]?, added: Bool) -> Double? {
        threshold(for: curve) ?? (added ? 1 : nil)
    }
}

extension Corrections {
    /// The labels a person added to some image. A search gives only these a threshold beyond what
    /// calibration allows, so a calibrated term does not read the postings of every parent label
    /// of its subtree.
    package static func addedLabelIDs(_ db: Database) throws -> Set<Int64> {
        Set(try Int64.fetchAll(db, sql: """
            SELECT DISTINCT l.id FROM corrections AS c JOIN labels AS l ON l.identifier = c.label WHERE c.added = 1
            """))
    }
}
