import Foundation
import GRDB

/// A piece of SQL and its arguments, in order. No value is ever spliced into
/// the text: every value is a `?` parameter.
package struct SQLFragment {
    var sql: String
    var arguments = StatementArguments()

    init(_ sql: String, _ arguments: StatementArguments = []) {
        self.sql = sql
        self.arguments = arguments
    }

    static func + (lhs: SQLFragment, rhs: SQLFragment) -> SQLFragment {
        SQLFragment(lhs.sql + rhs.sql, lhs.arguments + rhs.arguments)
    }

    static func += (lhs: inout SQLFragment, rhs: SQLFragment) { lhs = lhs + rhs }
}

/// Compiles a ``MatchPlan`` to one SQL statement whose rows are
/// `(image_id, score)`, one per matching image; score is NULL when no scored
/// operand matched (see ``QueryExpression`` for scores).
///
/// Plans:
/// - a term with one root label is one range of `observations_by_rank`
///   (label_id = ?, best >= ?), already in score order, so a first page stops
///   after `limit` rows;
/// - several roots: an `IN` list over the same index, grouped by image;
/// - calibrated: each label of the subtrees with its own threshold, on the
///   label's `best` (see ``Searcher`` for why `best` and not its own confidence);
/// - AND: the operand with the fewest images drives, scanned in image order
///   (primary key) so that probes of the other operands' primary keys
///   (label_id, image_id) walk the B-tree forward; `CROSS JOIN` pins that order;
/// - NOT: a `NOT EXISTS` probe per driving row;
/// - OR: `UNION ALL` grouped by image with the maximum score;
/// - faces (a word's `facesAtLeast`): the face label's rows joined to `image_faces` on the count range.
package struct SQLCompiler {
    /// Images of the query's scope (indexed or failed), for NOT and the empty query.
    let universe: String
    /// Total image count, the estimate for the universe.
    let total: Int
    private var aliases = 0

    init(status: ImageStatus, total: Int) {
        self.universe =
            status == .failed
            ? "SELECT id AS image_id, NULL AS score FROM images WHERE error_stage IS NOT NULL"
            : "SELECT id AS image_id, NULL AS score FROM images WHERE error_stage IS NULL"
        self.total = total
    }

    private mutating func alias() -> String {
        aliases += 1
        return "t\(aliases)"
    }

    /// Rows `(image_id, score)`. `imageOrder` scans a single-root term by image id.
    mutating func set(_ plan: MatchPlan, imageOrder: Bool = false) -> SQLFragment {
        switch plan {
        case .labels(let match):
            return labels(match, imageOrder: imageOrder)
        case .faces(let match):
            return SQLFragment(
                """
                SELECT o.image_id AS image_id, o.best AS score
                FROM observations AS o CROSS JOIN image_faces AS f ON f.image_id = o.image_id
                WHERE o.label_id = ? AND o.best >= ? AND f.face_count BETWEEN ? AND ?
                """, [match.labelID, match.threshold, match.counts.lowerBound, match.counts.upperBound])
        case .all:
            return SQLFragment(universe)
        case .nothing:
            return SQLFragment("SELECT NULL AS image_id, NULL AS score WHERE 0")
        case .or(let children):
            var fragment = SQLFragment("SELECT image_id, MAX(score) AS score FROM (")
            for (position, child) in children.enumerated() {
                if position > 0 { fragment += SQLFragment(" UNION ALL ") }
                fragment += SQLFragment("SELECT * FROM (") + set(child) + SQLFragment(")")
            }
            return fragment + SQLFragment(") GROUP BY image_id")
        case .not(let child):
            return SQLFragment("SELECT image_id, NULL AS score FROM (\(universe)) AS u WHERE NOT ")
                + contains(child, imageID: "u.image_id")
        case .and(let children):
            return and(children)
        }
    }

    private func labels(_ match: LabelMatch, imageOrder: Bool) -> SQLFragment {
        if let calibrated = match.calibrated {
            return SQLFragment(
                """
                SELECT o.image_id AS image_id, MAX(o.best) AS score
                FROM json_each(?) AS t CROSS JOIN observations AS o
                  ON o.label_id = (t.value ->> 0) AND o.best >= (t.value ->> 1)
                GROUP BY o.image_id
                """, [Self.json(calibrated.map { [$0.labelID, Int64($0.threshold)] })])
        }
        if match.roots.count == 1 {
            let hint = imageOrder ? " INDEXED BY \(Schema.primaryKeyIndex)" : ""
            return SQLFragment(
                "SELECT image_id, best AS score FROM observations\(hint) WHERE label_id = ? AND best >= ?",
                [match.roots[0], match.threshold])
        }
        return SQLFragment(
            """
            SELECT image_id, MAX(best) AS score FROM observations
            WHERE label_id IN (SELECT value FROM json_each(?)) AND best >= ? GROUP BY image_id
            """, [Self.json(match.roots), match.threshold])
    }

    private mutating func and(_ children: [MatchPlan]) -> SQLFragment {
        let positives = children.filter { !$0.isNegation }.sorted { $0.estimate(total: total) < $1.estimate(total: total) }
        let negatives = children.compactMap { child -> MatchPlan? in
            if case .not(let operand) = child { operand } else { nil }
        }
        let driverAlias = alias()
        let driver = positives.first ?? .all
        var from = SQLFragment("(") + set(driver, imageOrder: positives.count > 1 || !negatives.isEmpty)
            + SQLFragment(") AS \(driverAlias)")
        var scores = [positives.isEmpty ? "NULL" : "\(driverAlias).score"]
        for child in positives.dropFirst() {
            let name = alias()
            if case .labels(let match) = child, match.isSingleRoot {
                from += SQLFragment(
                    " CROSS JOIN observations AS \(name) ON \(name).label_id = ? AND \(name).image_id = "
                        + "\(driverAlias).image_id AND \(name).best >= ?", [match.roots[0], match.threshold])
                scores.append("\(name).best")
            } else {
                from += SQLFragment(" CROSS JOIN (") + set(child)
                    + SQLFragment(") AS \(name) ON \(name).image_id = \(driverAlias).image_id")
                scores.append("\(name).score")
            }
        }
        let unscored = StorageFormat.unscoredMarker
        let score =
            scores.count == 1
            ? scores[0]
            : "NULLIF(MIN(" + scores.map { "COALESCE(\($0), \(unscored))" }.joined(separator: ", ") + "), \(unscored))"
        var fragment = SQLFragment("SELECT \(driverAlias).image_id AS image_id, \(score) AS score FROM ") + from
        for (position, negative) in negatives.enumerated() {
            fragment += SQLFragment(position == 0 ? " WHERE NOT " : " AND NOT ")
            fragment += contains(negative, imageID: "\(driverAlias).image_id")
        }
        return fragment
    }

    /// A predicate true when `imageID` (a column reference) matches `plan`.
    mutating func contains(_ plan: MatchPlan, imageID: String) -> SQLFragment {
        switch plan {
        case .labels(let match) where match.calibrated == nil:
            if match.roots.count == 1 {
                return SQLFragment(
                    "EXISTS (SELECT 1 FROM observations WHERE label_id = ? AND image_id = \(imageID) AND best >= ?)",
                    [match.roots[0], match.threshold])
            }
            return SQLFragment(
                """
                EXISTS (SELECT 1 FROM observations WHERE label_id IN (SELECT value FROM json_each(?))
                        AND image_id = \(imageID) AND best >= ?)
                """, [Self.json(match.roots), match.threshold])
        case .faces(let match):
            return SQLFragment(
                """
                EXISTS (SELECT 1 FROM observations AS o CROSS JOIN image_faces AS f ON f.image_id = o.image_id
                        WHERE o.label_id = ? AND o.image_id = \(imageID) AND o.best >= ? AND f.face_count BETWEEN ? AND ?)
                """, [match.labelID, match.threshold, match.counts.lowerBound, match.counts.upperBound])
        case .all:
            return SQLFragment("(1)")
        case .nothing:
            return SQLFragment("(0)")
        case .not(let child):
            return SQLFragment("(NOT ") + contains(child, imageID: imageID) + SQLFragment(")")
        case .and(let children), .or(let children):
            let joiner: String = if case .and = plan { " AND " } else { " OR " }
            var fragment = SQLFragment("(")
            for (position, child) in children.enumerated() {
                if position > 0 { fragment += SQLFragment(joiner) }
                fragment += contains(child, imageID: imageID)
            }
            return fragment + SQLFragment(")")
        case .labels:
            return SQLFragment("\(imageID) IN (SELECT image_id FROM (") + set(plan) + SQLFragment("))")
        }
    }

    static func json(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    static func json(_ pairs: [[Int64]]) -> String {
        "[" + pairs.map { "[" + $0.map(String.init).joined(separator: ",") + "]" }.joined(separator: ",") + "]"
    }
}
