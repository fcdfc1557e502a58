/// Compiles a ``MatchPlan`` (the search language's AST with its terms resolved) to one SQL
/// statement whose rows are `(image_id, score)`, one per matching image; score is NULL when no
/// scored operand matched (see ``QueryExpression`` for scores). Written once for every database:
/// the ``SQLDialect`` spells what differs, and every value is bound through the ``SQLBinder``.
///
/// Plans:
/// - a term with one root label is one range of `observations_by_rank` (label_id, best >= t),
///   already in score order, so a first page stops after `limit` rows;
/// - several roots: a membership test over the same index, grouped by image with the highest `best`;
/// - calibrated: each label of the subtrees with its own threshold, on the label's `best` (see
///   ``Searcher`` for why `best` and not its own confidence);
/// - AND: the operand with the fewest images drives (in image order, so probes of the other
///   operands' primary keys walk the B-tree forward); the score is the lowest scored operand's,
///   NULL scores ignored;
/// - NOT: a `NOT EXISTS` probe per driving row; OR: `UNION ALL` grouped by image with the highest score;
/// - faces (a word's `facesAtLeast`): the face label's rows joined to `image_faces` on the count range;
/// - people: `face_people` joined to `images` by content hash, unscored.
///
/// A new term family is one ``MatchPlan`` case and one rule in ``set(_:imageOrder:)`` and
/// ``contains(_:imageID:)``: both databases run it.
///
/// Usage:
/// ```swift
/// var compiler = PlanCompiler(binder: SQLBinder(SQLiteDialect()), status: .indexed, total: 1_000)
/// let sql = compiler.set(plan)
/// let rows = try Row.fetchAll(db, sql: sql, arguments: compiler.binder.statementArguments)
/// ```
package struct PlanCompiler {
    /// Where the values go, and the dialect that spells the statement.
    package let binder: SQLBinder
    /// Images of the query's scope (indexed or failed), for NOT and the empty query.
    package let universe: String
    /// Total image count, the estimate for the universe.
    package let total: Int
    private var aliases = 0
    private var dialect: any SQLDialect { binder.dialect }

    /// Usage: `var compiler = PlanCompiler(binder: binder, status: query.filters.status, total: total)`
    package init(binder: SQLBinder, status: ImageStatus, total: Int) {
        self.binder = binder
        let null = binder.dialect.nullScore
        universe =
            status == .failed
            ? "SELECT id AS image_id, \(null) AS score FROM images WHERE error_stage IS NOT NULL"
            : "SELECT id AS image_id, \(null) AS score FROM images WHERE error_stage IS NULL"
        self.total = total
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// Rows `(image_id, score)`. `imageOrder` scans a single-root term by image id.
    package mutating func set(_ plan: MatchPlan, imageOrder: Bool = false) -> String {
        switch plan {
        case .labels(let match):
            return labels(match, imageOrder: imageOrder)
        case .faces(let match):
            return """
                SELECT o.image_id AS image_id, o.best AS score
                FROM observations AS o \(dialect.orderedJoin) image_faces AS f ON f.image_id = o.image_id
                WHERE o.label_id = \(binder.bind(match.labelID)) AND o.best >= \(binder.bind(match.threshold))
                  AND f.face_count BETWEEN \(binder.bind(match.counts.lowerBound)) AND \(binder.bind(match.counts.upperBound))
                """
        case .people(let match):
            return """
                SELECT DISTINCT i.id AS image_id, \(dialect.nullScore) AS score
                FROM face_people AS fp \(dialect.orderedJoin) images AS i ON i.content_hash = fp.content_hash
                WHERE \(dialect.isMember("fp.person_id", of: match.ids, binder)) AND i.error_stage IS NULL
                """
        case .all:
            return universe
        case .nothing:
            return "SELECT \(dialect.nullImageID) AS image_id, \(dialect.nullScore) AS score WHERE \(dialect.literalFalse)"
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
            return "SELECT \(name).image_id AS image_id, \(dialect.nullScore) AS score FROM (\(universe)) AS \(name) WHERE NOT "
                + contains(child, imageID: "\(name).image_id")
        case .and(let children):
            return and(children)
        }
    }

    /// The FROM clause of a calibrated term: each label of its subtrees joined to its rows that
    /// reach the label's own threshold (`o` the observations).
    private mutating func calibratedSource(_ calibrated: [(labelID: Int64, threshold: Int)]) -> String {
        let pairs = dialect.labelThresholds(calibrated.map { (label: $0.labelID, threshold: Int64($0.threshold)) }, binder)
        return "\(pairs.table) \(dialect.orderedJoin) observations AS o ON o.label_id = \(pairs.label) AND o.best >= \(pairs.threshold)"
    }

    private mutating func labels(_ match: LabelMatch, imageOrder: Bool) -> String {
        if let calibrated = match.calibrated {
            return "SELECT o.image_id AS image_id, MAX(o.best) AS score FROM \(calibratedSource(calibrated)) GROUP BY o.image_id"
        }
        if match.roots.count == 1 {
            let hint = imageOrder ? dialect.imageOrderHint : ""
            return "SELECT image_id, best AS score FROM observations\(hint) WHERE label_id = \(binder.bind(match.roots[0])) AND best >= \(binder.bind(match.threshold))"
        }
        return """
            SELECT image_id, MAX(best) AS score FROM observations
            WHERE \(dialect.isMember("label_id", of: match.roots, binder)) AND best >= \(binder.bind(match.threshold)) GROUP BY image_id
            """
    }

    private mutating func and(_ children: [MatchPlan]) -> String {
        let positives = children.filter { !$0.isNegation }.sorted { $0.estimate(total: total) < $1.estimate(total: total) }
        let negatives = children.compactMap { child -> MatchPlan? in
            if case .not(let operand) = child { operand } else { nil }
        }
        let driverAlias = alias()
        let driver = positives.first ?? .all
        var from = "(\(set(driver, imageOrder: positives.count > 1 || !negatives.isEmpty))) AS \(driverAlias)"
        var scores = [positives.isEmpty ? dialect.nullScore : "\(driverAlias).score"]
        // Where the dialect prefers it, operands whose own rows would be grouped per image (OR,
        // several roots, calibrated) join the driver row by row and are grouped after the join:
        // only the driver's images are aggregated, not every image of a large operand.
        var grouped = false
        for child in positives.dropFirst() {
            let name = alias()
            if case .labels(let match) = child, match.isSingleRoot {
                from += " \(dialect.orderedJoin) observations AS \(name) ON \(name).label_id = \(binder.bind(match.roots[0])) AND \(name).image_id = "
                    + "\(driverAlias).image_id AND \(name).best >= \(binder.bind(match.threshold))"
                scores.append("\(name).best")
            } else if dialect.groupsOperandsAfterJoin, let rows = ungroupedRows(child) {
                from += " \(dialect.orderedJoin) (\(rows)) AS \(name) ON \(name).image_id = \(driverAlias).image_id"
                scores.append("\(name).score")
                grouped = true
            } else {
                from += " \(dialect.orderedJoin) (\(set(child))) AS \(name) ON \(name).image_id = \(driverAlias).image_id"
                scores.append("\(name).score")
            }
        }
        // Grouped, every score is its operand's highest over the image's joined rows (one row
        // for the driver and single-row operands, so their MAX is their value).
        if grouped { scores = scores.map { "MAX(\($0))" } }
        // An unscored operand stands in as a marker above every score, so the lowest is a scored one's.
        let unscored = StorageFormat.unscoredMarker
        let score =
            scores.count == 1
            ? scores[0]
            : "NULLIF(" + dialect.least(scores.map { "COALESCE(\($0), \(unscored))" }) + ", \(unscored))"
        var sql = "SELECT \(driverAlias).image_id AS image_id, \(score) AS score FROM " + from
        for (position, negative) in negatives.enumerated() {
            sql += position == 0 ? " WHERE NOT " : " AND NOT "
            sql += contains(negative, imageID: "\(driverAlias).image_id")
        }
        if grouped { sql += " GROUP BY \(driverAlias).image_id" }
        return sql
    }

    /// Rows `(image_id, score)` of a plan that ``set(_:imageOrder:)`` groups per image (its score
    /// the highest of them), before the grouping: several rows per image. Nil for other plans.
    private mutating func ungroupedRows(_ plan: MatchPlan) -> String? {
        switch plan {
        case .labels(let match):
            if let calibrated = match.calibrated { return "SELECT o.image_id AS image_id, o.best AS score FROM \(calibratedSource(calibrated))" }
            guard match.roots.count > 1 else { return nil }
            return "SELECT image_id, best AS score FROM observations WHERE \(dialect.isMember("label_id", of: match.roots, binder)) AND best >= \(binder.bind(match.threshold))"
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
    package mutating func contains(_ plan: MatchPlan, imageID: String) -> String {
        switch plan {
        case .labels(let match) where match.calibrated == nil:
            let labels = match.roots.count == 1 ? "label_id = \(binder.bind(match.roots[0]))" : dialect.isMember("label_id", of: match.roots, binder)
            return "EXISTS (SELECT 1 FROM observations WHERE \(labels) AND image_id = \(imageID) AND best >= \(binder.bind(match.threshold)))"
        case .faces(let match):
            return """
                EXISTS (SELECT 1 FROM observations AS o \(dialect.orderedJoin) image_faces AS f ON f.image_id = o.image_id
                        WHERE o.label_id = \(binder.bind(match.labelID)) AND o.image_id = \(imageID) AND o.best >= \(binder.bind(match.threshold))
                          AND f.face_count BETWEEN \(binder.bind(match.counts.lowerBound)) AND \(binder.bind(match.counts.upperBound)))
                """
        case .people(let match):
            return """
                EXISTS (SELECT 1 FROM images AS pi \(dialect.orderedJoin) face_people AS fp ON fp.content_hash = pi.content_hash
                        WHERE pi.id = \(imageID) AND \(dialect.isMember("fp.person_id", of: match.ids, binder)))
                """
        case .all:
            return "(\(dialect.literalTrue))"
        case .nothing:
            return "(\(dialect.literalFalse))"
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
    /// Whether every row of ``PlanCompiler/set(_:imageOrder:)`` has a score: then ordering by
    /// score needs no NULLS LAST and can follow `observations_by_rank` instead of sorting every row.
    package var scoresAreNeverNull: Bool {
        switch self {
        case .labels, .faces: true
        case .all, .nothing, .not, .people: false
        case .or(let children): !children.isEmpty && children.allSatisfy(\.scoresAreNeverNull)
        // The lowest scored operand's score: one operand with a score always gives one.
        case .and(let children): children.contains { !$0.isNegation && $0.scoresAreNeverNull }
        }
    }
}
