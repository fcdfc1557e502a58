/// What an index run did, returned by ``IndexRun/finish()``.
///
/// ```swift
/// let summary = try run.finish()
/// print(summary)   // "scanned 120, unchanged 100, classified 15, ..."
/// ```
public struct RunSummary: Sendable, Hashable, CustomStringConvertible {
    /// Counts as given (all zero by default).
    public init(scanned: Int = 0, unchanged: Int = 0, classified: Int = 0, failed: Int = 0,
                touched: Int = 0, moved: Int = 0, copied: Int = 0, removed: Int = 0) {
        self.scanned = scanned
        self.unchanged = unchanged
        self.classified = classified
        self.failed = failed
        self.touched = touched
        self.moved = moved
        self.copied = copied
        self.removed = removed
    }

    /// Files passed to ``IndexRun/plan(_:)``.
    public var scanned = 0
    /// Files whose size, modification time and model stamp were unchanged.
    public var unchanged = 0
    /// Classifications written.
    public var classified = 0
    /// Failures written.
    public var failed = 0
    /// Files whose metadata changed but content did not: labels kept.
    public var touched = 0
    /// Files found at a new path with the same content: labels kept.
    public var moved = 0
    /// New files identical to an indexed one: labels copied.
    public var copied = 0
    /// Indexed files under the roots that the scan did not see: removed.
    public var removed = 0

    /// Counts a file kept without classifying it (touched, moved or copied); `.classify` counts
    /// nothing here (it is counted when its result is written).
    ///
    /// Usage: `summary.record(.touched)`
    package mutating func record(_ resolution: Resolution) {
        switch resolution {
        case .classify: break
        case .touched: touched += 1
        case .moved: moved += 1
        case .copied: copied += 1
        }
    }

    /// One line for logs and the command-line tool.
    ///
    /// ```swift
    /// print(summary.description)
    /// ```
    public var description: String {
        "scanned \(scanned), unchanged \(unchanged), classified \(classified), failed \(failed), "
            + "touched \(touched), moved \(moved), copied \(copied), removed \(removed)"
    }
}
