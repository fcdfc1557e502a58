/// The query's file filters and status as conditions on `images AS i`, written once for every
/// database (the ``SQLDialect`` spells byte order, case-insensitive LIKE and the calibrated
/// `untagged` test).
///
/// Usage: `let clause = SearchFilters(query: query, calibrated: thresholds).whereClause(binder)`
package struct SearchFilters {
    package let query: Query
    /// Quantized per-label thresholds of a calibrated query, nil when it is not calibrated.
    package let calibrated: [Int64: Int]?

    /// Usage: `SearchFilters(query: query, calibrated: nil)`
    package init(query: Query, calibrated: [Int64: Int]?) {
        self.query = query
        self.calibrated = calibrated
    }

    /// ` WHERE ...` for the filters and status (always at least the status), values bound through `binder`.
    package func whereClause(_ binder: SQLBinder) -> String {
        conditions(binder).enumerated().map { ($0.offset == 0 ? " WHERE " : " AND ") + $0.element }.joined()
    }

    /// Each condition on its own.
    package func conditions(_ binder: SQLBinder) -> [String] {
        let dialect = binder.dialect
        let filters = query.filters
        var conditions: [String] = []
        for folder in filters.folders {
            let path = dialect.byteOrdered("i.path")
            conditions.append("\(path) >= \(binder.bind(folder + "/")) AND \(path) < \(binder.bind(folder + "0"))")
        }
        if !filters.fileTypes.isEmpty {
            let alternatives = filters.fileTypes.map { type in
                let pattern = "%." + type.replacingOccurrences(of: "\\", with: "\\\\")
                    .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
                return dialect.likeIgnoringCase("i.path", pattern: pattern, binder)
            }
            conditions.append("(" + alternatives.joined(separator: " OR ") + ")")
        }
        if let after = filters.modifiedAfter { conditions.append("i.mtime >= \(binder.bind(Timestamps.microseconds(after)))") }
        if let before = filters.modifiedBefore { conditions.append("i.mtime < \(binder.bind(Timestamps.microseconds(before)))") }
        if let width = filters.minimumWidth { conditions.append("i.width >= \(binder.bind(width))") }
        if let height = filters.minimumHeight { conditions.append("i.height >= \(binder.bind(height))") }
        if let bytes = filters.minimumBytes { conditions.append("i.size >= \(binder.bind(bytes))") }
        if let bytes = filters.maximumBytes { conditions.append("i.size <= \(binder.bind(bytes))") }
        if let faces = filters.faceCount {
            conditions.append(
                "EXISTS (SELECT 1 FROM image_faces AS f WHERE f.image_id = i.id AND f.face_count BETWEEN "
                    + "\(binder.bind(faces.lowerBound)) AND \(binder.bind(faces.upperBound)))")
        }
        switch filters.status {
        case .indexed:
            conditions.append("i.error_stage IS NULL")
        case .failed:
            conditions.append("i.error_stage IS NOT NULL")
        case .untagged:
            conditions.append("i.error_stage IS NULL")
            if let calibrated {
                conditions.append(dialect.noLabelPasses(imageID: "i.id", thresholds: calibrated, binder))
            } else {
                conditions.append("(i.top_confidence IS NULL OR i.top_confidence < \(binder.bind(StorageFormat.threshold(query.minimumConfidence))))")
            }
        }
        return conditions
    }
}
