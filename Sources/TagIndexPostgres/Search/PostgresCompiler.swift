import TagIndex
import PostgresNIO

/// Compiles a ``MatchPlan`` (the search language's AST with its terms resolved, shared with the
/// SQLite dialect in `Query/SQLCompiler.swift`) to one PostgreSQL statement whose rows are
/// `(image_id, score)`, one per matching image; score is NULL when no scored operand matched.
///
/// Every value is a bound parameter (`$1`, `$2`, ...); label lists are bound as arrays
/// (`= ANY($n::bigint[])`, `unnest`), never spliced into the text. Results are those of the
/// SQLite dialect, operator for operator:
/// - a term with one root label is one range of `observations_by_rank` (label_id, best >= t);
/// - several roots: `label_id = ANY(...)` grouped by image with the highest `best`;
/// - calibrated: `unnest` of (label, threshold) pairs joined to `observations`;
/// - AND: the operand with the fewest images drives, the others are joined on image id, the
///   score is the lowest scored operand's (NULL scores ignored, as in the SQLite dialect);
/// - NOT: `NOT EXISTS` per row; OR: `UNION ALL` grouped by image with the highest score;
/// - faces (a word's `facesAtLeast`): the face label's rows joined to `image_faces` on the count range.
///
/// Usage:
/// ```swift
/// var compiler = PostgresCompiler(status: .indexed, total: 1_000)
/// let sql = compiler.set(plan)
/// let rows = try await session.query(sql, compiler.binds)
/// ```
struct PostgresCompiler {
    /// The parameters, in `$n` order.
    private(set) var binds = PostgresBindings()
    private var parameterCount = 0
    private var aliases = 0
    /// Images of the query's scope (indexed or failed), for NOT and the empty query.
    let universe: String
    /// Total image count, the estimate for the universe.
    let total: Int

    init(status: ImageStatus, total: Int) {
        universe =
            status == .failed
            ? "SELECT id AS image_id, NULL::integer AS score FROM images WHERE error_stage IS NOT NULL"
            : "SELECT id AS image_id, NULL::integer AS score FROM images WHERE error_stage IS NULL"
        self.total = total
    }

    /// Adds a parameter and returns its placeholder.
    mutating func bind(_ value: Int64) -> String {
        binds.append(value)
        parameterCount += 1
        return "$\(parameterCount)"
    }

    /// Adds an array parameter and returns its placeholder, cast to `bigint[]`.
    mutating func bind(_ values: [Int64]) -> String {
        binds.append(values)
        parameterCount += 1
        return "$\(parameterCount)::bigint[]"
    }

    /// Adds a text parameter and returns its placeholder.
    mutating func bind(_ value: String) -> String {
        binds.append(value)
        parameterCount += 1
        return "$\(parameterCount)"
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// Rows `(image_id, score)`.
    mutating func set(_ plan: MatchPlan) -> String {
        switch plan {
        case .labels(let match):
            return labels(match)
        case .faces(let match):
            return """
                SELECT o.image_id AS image_id, o.best AS score
                FROM observations AS o JOIN image_faces AS f ON f.image_id = o.image_id
                WHERE o.label_id = \(bind(match.labelID)) AND o.best >= \(bind(Int64(match.threshold)))
                  AND f.face_count BETWEEN \(bind(Int64(match.counts.lowerBound))) AND \(bind(Int64(match.counts.upperBound)))
                """
        case .all:
            return universe
        case .nothing:
            return "SELECT NULL::bigint AS image_id, NULL::integer AS score WHERE FALSE"
        case .or(let children):
            let parts = children.map { child -> String in
                let name = alias()
                return "SELECT \(name).image_id, \(name).score FROM (\(set(child))) AS \(name)"
            }
            let name = alias()
            return "SELECT \(name).image_id AS image_id, MAX(\(name).score) AS score FROM ("
                + parts.joined(separator: " UNION ALL ") + ") AS \(name) GROUP BY \(name).image_id"
        case .not(let child):
            let name = alias()
            return "SELECT \(name).image_id AS image_id, NULL::integer AS score FROM (\(universe)) AS \(name) WHERE NOT "
                + contains(child, imageID: "\(name).image_id")
        case .and(let children):
            return and(children)
        }
    }

    private mutating func labels(_ match: LabelMatch) -> String {
        if let calibrated = match.calibrated {
            let labelIDs = bind(calibrated.map(\.labelID))
            let thresholds = bind(calibrated.map { Int64($0.threshold) })
            return """
                SELECT o.image_id AS image_id, MAX(o.best) AS score
                FROM unnest(\(labelIDs), \(thresholds)) AS c(label_id, threshold)
                JOIN observations AS o ON o.label_id = c.label_id AND o.best >= c.threshold
                GROUP BY o.image_id
                """
        }
        if match.roots.count == 1 {
            return "SELECT image_id, best AS score FROM observations WHERE label_id = \(bind(match.roots[0])) AND best >= \(bind(Int64(match.threshold)))"
        }
        return """
            SELECT image_id, MAX(best) AS score FROM observations
            WHERE label_id = ANY(\(bind(match.roots))) AND best >= \(bind(Int64(match.threshold))) GROUP BY image_id
            """
    }

    private mutating func and(_ children: [MatchPlan]) -> String {
        let positives = children.filter { !$0.isNegation }.sorted { $0.estimate(total: total) < $1.estimate(total: total) }
        let negatives = children.compactMap { child -> MatchPlan? in
            if case .not(let operand) = child { operand } else { nil }
        }
        let driverAlias = alias()
        let driver = positives.first ?? .all
        var from = "(\(set(driver))) AS \(driverAlias)"
        var scores = [positives.isEmpty ? "NULL::integer" : "\(driverAlias).score"]
        // Operands whose own rows would be grouped per image (OR, several roots, calibrated) join
        // the driver row by row and are grouped here, after the join: only the driver's images
        // are aggregated, not every image of a large operand.
        var grouped = false
        for child in positives.dropFirst() {
            let name = alias()
            if case .labels(let match) = child, match.isSingleRoot {
                from += " JOIN observations AS \(name) ON \(name).label_id = \(bind(match.roots[0])) AND \(name).image_id = "
                    + "\(driverAlias).image_id AND \(name).best >= \(bind(Int64(match.threshold)))"
                scores.append("\(name).best")
            } else if let rows = ungroupedRows(child) {
                from += " JOIN (\(rows)) AS \(name) ON \(name).image_id = \(driverAlias).image_id"
                scores.append("\(name).score")
                grouped = true
            } else {
                from += " JOIN (\(set(child))) AS \(name) ON \(name).image_id = \(driverAlias).image_id"
                scores.append("\(name).score")
            }
        }
        // Grouped, every score is its operand's highest over the image's joined rows (one row
        // for the driver and single-row operands, so their MAX is their value).
        if grouped { scores = scores.map { "MAX(\($0))" } }
        // SQLite's multi-argument MIN is LEAST here; an unscored operand stands in as a marker
        // above every score, as in the SQLite dialect.
        let unscored = StorageFormat.unscoredMarker
        let score =
            scores.count == 1
            ? scores[0]
            : "NULLIF(LEAST(" + scores.map { "COALESCE(\($0), \(unscored))" }.joined(separator: ", ") + "), \(unscored))"
        var sql = "SELECT \(driverAlias).image_id AS image_id, \(score) AS score FROM " + from
        for (position, negative) in negatives.enumerated() {
            sql += position == 0 ? " WHERE NOT " : " AND NOT "
            sql += contains(negative, imageID: "\(driverAlias).image_id")
        }
        if grouped { sql += " GROUP BY \(driverAlias).image_id" }
        return sql
    }

    /// Rows `(image_id, score)` of a plan that ``set(_:)`` groups per image (its score the
    /// highest of them), before the grouping: several rows per image. Nil for other plans.
    private mutating func ungroupedRows(_ plan: MatchPlan) -> String? {
        switch plan {
        case .labels(let match):
            if let calibrated = match.calibrated {
                let labelIDs = bind(calibrated.map(\.labelID))
                let thresholds = bind(calibrated.map { Int64($0.threshold) })
                return """
                    SELECT o.image_id AS image_id, o.best AS score
                    FROM unnest(\(labelIDs), \(thresholds)) AS c(label_id, threshold)
                    JOIN observations AS o ON o.label_id = c.label_id AND o.best >= c.threshold
                    """
            }
            guard match.roots.count > 1 else { return nil }
            return "SELECT image_id, best AS score FROM observations WHERE label_id = ANY(\(bind(match.roots))) AND best >= \(bind(Int64(match.threshold)))"
        case .or(let children):
            return children.map { child -> String in
                let name = alias()
                return "SELECT \(name).image_id, \(name).score FROM (\(ungroupedRows(child) ?? set(child))) AS \(name)"
            }.joined(separator: " UNION ALL ")
        default:
            return nil
        }
    }

    /// A predicate true when `imageID` (a column reference) matches `plan`.
    mutating func contains(_ plan: MatchPlan, imageID: String) -> String {
        switch plan {
        case .labels(let match) where match.calibrated == nil:
            if match.roots.count == 1 {
                return "EXISTS (SELECT 1 FROM observations WHERE label_id = \(bind(match.roots[0])) AND image_id = \(imageID) AND best >= \(bind(Int64(match.threshold))))"
            }
            return "EXISTS (SELECT 1 FROM observations WHERE label_id = ANY(\(bind(match.roots))) AND image_id = \(imageID) AND best >= \(bind(Int64(match.threshold))))"
        case .faces(let match):
            return """
                EXISTS (SELECT 1 FROM observations AS o JOIN image_faces AS f ON f.image_id = o.image_id
                        WHERE o.label_id = \(bind(match.labelID)) AND o.image_id = \(imageID)
                          AND o.best >= \(bind(Int64(match.threshold))) AND f.face_count BETWEEN \(bind(Int64(match.counts.lowerBound))) AND \(bind(Int64(match.counts.upperBound))))
                """
        case .all:
            return "TRUE"
        case .nothing:
            return "FALSE"
        case .not(let child):
            return "(NOT " + contains(child, imageID: imageID) + ")"
        case .and(let children), .or(let children):
            let joiner: String = if case .and = plan { " AND " } else { " OR " }
            return "(" + children.map { contains($0, imageID: imageID) }.joined(separator: joiner) + ")"
        case .labels:
            let name = alias()
            return "\(imageID) IN (SELECT \(name).image_id FROM (\(set(plan))) AS \(name))"
        }
    }
}

extension MatchPlan {
    /// Whether every row of ``PostgresCompiler/set(_:)`` has a score: then ordering by score
    /// needs no NULLS LAST and can follow `observations_by_rank` instead of sorting every row.
    var scoresAreNeverNull: Bool {
        switch self {
        case .labels, .faces: true
        case .all, .nothing, .not: false
        case .or(let children): !children.isEmpty && children.allSatisfy(\.scoresAreNeverNull)
        // The lowest scored operand's score: one operand with a score always gives one.
        case .and(let children): children.contains { !$0.isNegation && $0.scoresAreNeverNull }
        }
    }
}
