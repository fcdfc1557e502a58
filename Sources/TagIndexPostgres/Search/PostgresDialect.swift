import Foundation
import PostgresNIO
import TagIndex

/// PostgreSQL's spelling of a search (see `SQLDialect`): `$n` placeholders, typed NULLs, id lists
/// bound as `bigint[]` (`= ANY`, `unnest`), text compared byte for byte (`COLLATE "C"`, as SQLite
/// compares), `ILIKE`, and AND operands grouped after the join. Results are SQLite's, operator
/// for operator (the behaviour suites compare the two on copies of one index).
///
/// Usage: `let binder = SQLBinder(PostgresDialect())`
package struct PostgresDialect: SQLDialect {
    /// Usage: `PostgresDialect()`
    package init() {}

    package func placeholder(at position: Int) -> String { "$\(position)" }
    package var nullScore: String { "NULL::integer" }
    package var nullImageID: String { "NULL::bigint" }
    package var literalTrue: String { "TRUE" }
    package var literalFalse: String { "FALSE" }
    package var orderedJoin: String { "JOIN" }
    package func least(_ expressions: [String]) -> String { "LEAST(" + expressions.joined(separator: ", ") + ")" }

    package func isMember(_ column: String, of ids: [Int64], _ binder: SQLBinder) -> String {
        "\(column) = ANY(\(binder.bind(.integers(ids)))::bigint[])"
    }

    package func labelThresholds(_ pairs: [(label: Int64, threshold: Int64)], _ binder: SQLBinder) -> (table: String, label: String, threshold: String) {
        let labels = binder.bind(.integers(pairs.map(\.label))), thresholds = binder.bind(.integers(pairs.map(\.threshold)))
        return ("unnest(\(labels)::bigint[], \(thresholds)::bigint[]) AS c(label_id, threshold)", "c.label_id", "c.threshold")
    }

    package var imageOrderHint: String { "" }
    package var groupsOperandsAfterJoin: Bool { true }
    package func byteOrdered(_ column: String) -> String { "\(column) COLLATE \"C\"" }

    /// SQLite's LIKE ignores ASCII case; backslash is PostgreSQL's default LIKE escape.
    package func likeIgnoringCase(_ column: String, pattern: String, _ binder: SQLBinder) -> String {
        "\(column) ILIKE \(binder.bind(pattern))"
    }

    /// The server knows nothing of the client's time zone: its name is bound.
    package func localYearMonth(ofMicroseconds microseconds: String, _ binder: SQLBinder) -> String {
        "to_char(to_timestamp(\(microseconds) / 1000000.0) AT TIME ZONE \(binder.bind(TimeZone.current.identifier)), 'YYYY-MM')"
    }

    package func noLabelPasses(imageID: String, thresholds: [Int64: Int], _ binder: SQLBinder) -> String {
        let sorted = thresholds.sorted { $0.key < $1.key }
        let pairs = labelThresholds(sorted.map { (label: $0.key, threshold: Int64($0.value)) }, binder)
        return """
            NOT EXISTS (SELECT 1 FROM \(pairs.table)
                        JOIN observations AS o ON o.label_id = \(pairs.label) AND o.image_id = \(imageID) AND o.best >= \(pairs.threshold))
            """
    }
}

extension SQLBinder {
    /// The bound values as PostgresNIO bindings.
    ///
    /// Usage: `try await session.all(sql, binder.postgresBindings) { ... }`
    package var postgresBindings: PostgresBindings {
        var bindings = PostgresBindings()
        for value in values {
            switch value {
            case .integer(let integer): bindings.append(integer)
            case .text(let text): bindings.append(text)
            case .real(let real): bindings.append(real)
            case .integers(let integers): bindings.append(integers)
            }
        }
        return bindings
    }
}
