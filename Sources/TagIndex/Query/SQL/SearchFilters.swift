import Foundation
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
        conditions += metadataConditions(filters, binder)
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

    /// Date taken, camera, lens and position: conditions on the image's `image_metadata` row.
    private func metadataConditions(_ filters: ImageFilters, _ binder: SQLBinder) -> [String] {
        let dialect = binder.dialect
        var conditions: [String] = []
        func metadata(_ condition: String) -> String {
            "EXISTS (SELECT 1 FROM image_metadata AS m WHERE m.image_id = i.id AND \(condition))"
        }
        if let taken = filters.taken {
            var stated: [String] = [], fileTime: [String] = []
            if let lower = taken.lower {
                stated.append("m.taken_local >= \(binder.bind(lower))")
                let instant = LocalTimeRange.instant(lower, in: .current) ?? .distantPast
                fileTime.append("i.mtime >= \(binder.bind(Timestamps.microseconds(instant)))")
            }
            if let upper = taken.upper {
                stated.append("m.taken_local < \(binder.bind(upper))")
                let instant = LocalTimeRange.instant(upper, in: .current) ?? .distantFuture
                fileTime.append("i.mtime < \(binder.bind(Timestamps.microseconds(instant)))")
            }
            if !stated.isEmpty {
                // Photos with no date stored (indexed before dates were read, or a file time
                // beyond the calendar) are matched by their file time.
                conditions.append(
                    "(" + metadata(stated.joined(separator: " AND ")) + " OR (NOT " + metadata("m.taken_local IS NOT NULL")
                        + " AND " + fileTime.joined(separator: " AND ") + "))")
            }
        }
        if !filters.takenMonths.isEmpty {
            let months = filters.takenMonths.sorted()
            func among(_ month: String) -> String { "\(month) IN (" + months.map { binder.bind($0) }.joined(separator: ", ") + ")" }
            conditions.append(
                "(" + metadata(among("CAST(substr(m.taken_local, 6, 2) AS INTEGER)")) + " OR (NOT " + metadata("m.taken_local IS NOT NULL")
                    + " AND " + among("CAST(substr(\(dialect.localYearMonth(ofMicroseconds: "i.mtime", binder)), 6, 2) AS INTEGER)") + "))")
        }
        if let camera = filters.camera {
            conditions.append(metadata(dialect.likeIgnoringCase(
                "(COALESCE(m.camera_make, '') || ' ' || COALESCE(m.camera_model, ''))", pattern: Self.containing(camera), binder)))
        }
        if let lens = filters.lens {
            conditions.append(metadata(dialect.likeIgnoringCase("m.lens", pattern: Self.containing(lens), binder)))
        }
        if let near = filters.near { conditions.append(metadata(Self.within(near, binder))) }
        for matches in filters.places {
            var alternatives: [String] = []
            let ids = matches.flatMap { match -> [Int] in if case .places(let ids) = match { ids } else { [] } }
            if !ids.isEmpty { alternatives.append("m.place_id IN (" + ids.map { binder.bind($0) }.joined(separator: ", ") + ")") }
            for match in matches {
                switch match {
                case .places: continue
                case .area(let area): alternatives.append("(" + Self.within(area, binder) + ")")
                case .region(let country, let admin1):
                    alternatives.append("(m.country_code = \(binder.bind(country)) AND m.admin1_code = \(binder.bind(admin1)))")
                case .country(let country):
                    alternatives.append("m.country_code = \(binder.bind(country))")
                }
            }
            conditions.append(metadata("(" + alternatives.joined(separator: " OR ") + ")"))
        }
        return conditions
    }

    /// Whether `m`'s position is inside `area`. Degrees of latitude are 111.195 km everywhere;
    /// degrees of longitude shrink with the cosine of the latitude. The flat-earth distance is
    /// within 1% of the great circle up to a few hundred kilometres (a circle across the
    /// antimeridian is not joined up).
    private static func within(_ area: NearbyArea, _ binder: SQLBinder) -> String {
        let kilometresPerDegree = 111.195
        let latitudeSpan = area.radiusKilometres / kilometresPerDegree
        let scale = max(cos(area.latitude * .pi / 180), 1e-6)
        let longitudeSpan = min(360, latitudeSpan / scale)
        let dy = "(m.latitude - \(binder.bind(area.latitude)))"
        let dx = "((m.longitude - \(binder.bind(area.longitude))) * \(binder.bind(scale)))"
        return """
            m.latitude BETWEEN \(binder.bind(area.latitude - latitudeSpan)) AND \(binder.bind(area.latitude + latitudeSpan)) \
            AND m.longitude BETWEEN \(binder.bind(area.longitude - longitudeSpan)) AND \(binder.bind(area.longitude + longitudeSpan)) \
            AND \(dy) * \(dy) + \(dx) * \(dx) <= \(binder.bind(latitudeSpan * latitudeSpan))
            """
    }

    /// A LIKE pattern for text containing `text` (its `%`, `_` and `\\` taken literally).
    private static func containing(_ text: String) -> String {
        "%" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
    }
}
