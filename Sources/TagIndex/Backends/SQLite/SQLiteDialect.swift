import GRDB

/// SQLite's spelling of a search (see ``SQLDialect``): numbered `?n` placeholders, lists bound as
/// JSON text read with `json_each`, `CROSS JOIN` to fix the join order, the primary-key index
/// named for scans in image order.
///
/// Usage: `var compiler = PlanCompiler(dialect: SQLiteDialect(), status: .indexed, total: total)`
package struct SQLiteDialect: SQLDialect {
    /// The SQL function (registered on the connection for one search) that tells whether any of
    /// an image's packed labels reaches its calibrated threshold; needed only for `untagged` under
    /// a calibrated filter.
    package var passesFunction: String?

    /// Usage: `SQLiteDialect(passesFunction: function.name)`
    package init(passesFunction: String? = nil) {
        self.passesFunction = passesFunction
    }

    package func placeholder(at position: Int) -> String { "?\(position)" }
    package var nullScore: String { "NULL" }
    package var nullImageID: String { "NULL" }
    package var literalTrue: String { "1" }
    package var literalFalse: String { "0" }
    package var orderedJoin: String { "CROSS JOIN" }
    package func least(_ expressions: [String]) -> String { "MIN(" + expressions.joined(separator: ", ") + ")" }

    package func isMember(_ column: String, of ids: [Int64], _ binder: SQLBinder) -> String {
        "\(column) IN (SELECT value FROM json_each(\(binder.bind(Self.json(ids)))))"
    }

    package func labelThresholds(_ pairs: [(label: Int64, threshold: Int64)], _ binder: SQLBinder) -> (table: String, label: String, threshold: String) {
        let json = "[" + pairs.map { "[\($0.label),\($0.threshold)]" }.joined(separator: ",") + "]"
        return ("json_each(\(binder.bind(json))) AS c", "(c.value ->> 0)", "(c.value ->> 1)")
    }

    package var imageOrderHint: String { " INDEXED BY \(Schema.primaryKeyIndex)" }
    package var groupsOperandsAfterJoin: Bool { false }
    package func byteOrdered(_ column: String) -> String { column }

    package func likeIgnoringCase(_ column: String, pattern: String, _ binder: SQLBinder) -> String {
        "\(column) LIKE \(binder.bind(pattern)) ESCAPE '\\'"
    }

    /// SQLite's `localtime` is the C library's, which follows the same `TZ` as Foundation's
    /// `TimeZone.current`.
    package func localYearMonth(ofMicroseconds microseconds: String, _ binder: SQLBinder) -> String {
        "strftime('%Y-%m', \(microseconds) / 1000000, 'unixepoch', 'localtime')"
    }

    package func noLabelPasses(imageID: String, thresholds: [Int64: Int], _ binder: SQLBinder) -> String {
        guard let passesFunction else { preconditionFailure("a calibrated untagged search registers its function first") }
        return "NOT EXISTS (SELECT 1 FROM image_labels AS il WHERE il.image_id = \(imageID) AND \(passesFunction)(il.packed))"
    }

    /// A JSON array of ids, as `json_each` reads a bound list.
    ///
    /// Usage: `arguments: [SQLiteDialect.json(ids)]`
    package static func json(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }
}

extension SQLBinder {
    /// The bound values as GRDB arguments (SQLite's dialect binds lists as JSON text).
    ///
    /// Usage: `try Row.fetchAll(db, sql: sql, arguments: binder.statementArguments)`
    package var statementArguments: StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in
            switch value {
            case .integer(let integer): integer
            case .text(let text): text
            case .real(let real): real
            case .integers(let integers): SQLiteDialect.json(integers)
            }
        })
    }
}
