/// What differs between the SQL databases a search compiles to, and nothing else: the compiler
/// (``PlanCompiler``) and the filters (``SearchFilters``) are written once and ask the dialect
/// only how to spell a placeholder, a typed NULL, a list of ids, a table of (label, threshold)
/// pairs, byte-ordered text, a case-insensitive suffix match, and a few planning choices.
///
/// SQLite's dialect is ``SQLiteDialect``; PostgreSQL's is in TagIndexPostgres.
///
/// Usage: `var compiler = PlanCompiler(dialect: SQLiteDialect(), status: .indexed, total: 1_000)`
package protocol SQLDialect: Sendable {
    /// The placeholder of the `position`-th bound value, counted from 1 (`?1`, `$1`).
    func placeholder(at position: Int) -> String

    /// A NULL of the score column's type (PostgreSQL must know the type of a NULL in a UNION).
    var nullScore: String { get }
    /// A NULL of the image id column's type.
    var nullImageID: String { get }
    /// Always-true and always-false predicates.
    var literalTrue: String { get }
    var literalFalse: String { get }

    /// The join that keeps the written order of its operands (SQLite plans a `CROSS JOIN` left to
    /// right, which the compiler uses to make the smallest operand drive; PostgreSQL plans joins
    /// itself).
    var orderedJoin: String { get }

    /// The least of several expressions (SQLite's multi-argument MIN, PostgreSQL's LEAST).
    func least(_ expressions: [String]) -> String

    /// Binds a list of label or image ids and returns a predicate: `column` is one of them.
    func isMember(_ column: String, of ids: [Int64], _ binder: SQLBinder) -> String

    /// Binds (label, threshold) pairs and returns a table expression for a FROM clause and the
    /// expressions of its label and threshold columns.
    func labelThresholds(_ pairs: [(label: Int64, threshold: Int64)], _ binder: SQLBinder) -> (table: String, label: String, threshold: String)

    /// What follows `FROM observations` in a scan of one label that must come in image order
    /// (SQLite names its primary-key index; PostgreSQL's planner finds it).
    var imageOrderHint: String { get }

    /// Whether an AND's operands that give several rows per image (OR, several roots, calibrated)
    /// are joined row by row and grouped after the join, so that only the driving operand's
    /// images are aggregated (PostgreSQL), rather than grouped first (SQLite).
    var groupsOperandsAfterJoin: Bool { get }

    /// `column` compared in byte order, as SQLite always compares text.
    func byteOrdered(_ column: String) -> String

    /// A predicate: `column` matches the bound LIKE `pattern` (with `\` escapes), ignoring ASCII case.
    func likeIgnoringCase(_ column: String, pattern: String, _ binder: SQLBinder) -> String

    /// A predicate: no label of the image `imageID` reaches its calibrated threshold (`untagged`
    /// under a calibrated filter).
    func noLabelPasses(imageID: String, thresholds: [Int64: Int], _ binder: SQLBinder) -> String

    /// `YYYY-MM` text of the month, in this computer's time zone, of `microseconds` since 1970 (a
    /// file time).
    func localYearMonth(ofMicroseconds microseconds: String, _ binder: SQLBinder) -> String
}

/// A value bound to a statement.
///
/// Usage: `binder.bind(.integer(42))`
package enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    /// A floating-point number (positions).
    case real(Double)
    /// An array of integers (PostgreSQL `bigint[]`; SQLite's dialect binds lists as JSON text).
    case integers([Int64])
}

/// The values of one statement, in placeholder order: every value goes through ``bind(_:)``,
/// which returns its placeholder, so no value is ever spliced into the text. A class, so that
/// the compiler, the filters and the dialect all add to the same statement.
///
/// Usage: `let binder = SQLBinder(SQLiteDialect()); let sql = "size >= \(binder.bind(.integer(100)))"`
package final class SQLBinder {
    package let dialect: any SQLDialect
    /// The bound values; the n-th is placeholder n.
    package private(set) var values: [SQLValue] = []

    /// Usage: `let binder = SQLBinder(dialect)`
    package init(_ dialect: any SQLDialect) {
        self.dialect = dialect
    }

    /// Adds `value` and returns its placeholder.
    package func bind(_ value: SQLValue) -> String {
        values.append(value)
        return dialect.placeholder(at: values.count)
    }

    /// Shorthand for an integer.
    package func bind(_ value: Int64) -> String { bind(.integer(value)) }

    /// Shorthand for an integer.
    package func bind(_ value: Int) -> String { bind(.integer(Int64(value))) }

    /// Shorthand for text.
    package func bind(_ value: String) -> String { bind(.text(value)) }

    /// Shorthand for a floating-point number.
    package func bind(_ value: Double) -> String { bind(.real(value)) }
}
