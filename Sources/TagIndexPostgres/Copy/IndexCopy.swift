import TagIndex
import Foundation
import GRDB
import PostgresNIO

/// Moves an index between backends without classifying anything again: every row of every table
/// of the shared schema, ids kept, so a copy answers every search as the original does.
///
/// The target must be empty (its schema is created when missing). Rows are read in primary-key
/// order in pages of ``defaultPageSize`` rows and written in one transaction, so an interrupted copy leaves
/// an empty target and can simply be run again. `label_text` (SQLite's full-text index) is not
/// copied, and each backend rebuilds its own postings (`label_postings`) from the copied rows:
/// SQLite once the rows are written, PostgreSQL by compacting them after the copy.
///
/// Usage: `let copied = try await IndexCopy.copy(from: sqliteIndex, to: session)`
public enum IndexCopy {
    /// Rows read and written per statement unless a copy says otherwise.
    ///
    /// Usage: `try await IndexCopy.copy(from: index, to: session, pageSize: IndexCopy.defaultPageSize)`
    public static let defaultPageSize = 500

    /// One table of the shared schema: its columns (key columns first) and those that are
    /// booleans on PostgreSQL (0/1 integers in SQLite).
    struct Table {
        var name: String
        var columns: [String]
        var keyCount: Int
        var booleans: Set<String> = []
        /// Whether PostgreSQL generates its ids (the sequence is moved past the copied ids).
        var hasIdentity = false
        /// Text key columns, ordered in byte order on PostgreSQL as on SQLite (keyset pagination
        /// needs both sides to agree on the order).
        var textKeys: Set<String> { Set(columns.prefix(keyCount).filter { ["key", "content_hash", "label"].contains($0) }) }
    }

    /// In dependency order (referenced tables first).
    static let tables: [Table] = [
        Table(name: "meta", columns: ["key", "value"], keyCount: 1),
        Table(name: "models", columns: ["id", "name", "version"], keyCount: 1, hasIdentity: true),
        Table(name: "curves", columns: ["id", "points"], keyCount: 1, hasIdentity: true),
        Table(name: "labels", columns: ["id", "identifier", "display_name", "synonyms", "image_count", "curve_id"], keyCount: 1, hasIdentity: true),
        Table(name: "label_parents", columns: ["label_id", "parent_id"], keyCount: 2),
        Table(name: "images", columns: [
            "id", "path", "size", "mtime", "content_hash", "width", "height", "model_id", "indexed_at", "error_stage",
            "error_reason", "top_confidence", "feature_print", "dominant_colors",
        ], keyCount: 1, hasIdentity: true),
        Table(name: "observations", columns: ["label_id", "image_id", "best", "confidence"], keyCount: 2),
        Table(name: "image_labels", columns: ["image_id", "packed"], keyCount: 1),
        Table(name: "corrections", columns: ["content_hash", "label", "added", "user_label", "corrected_at"], keyCount: 2, booleans: ["added", "user_label"]),
        Table(name: "model_labels", columns: ["image_id", "packed"], keyCount: 1),
        Table(name: "image_faces", columns: ["image_id", "face_count", "faces"], keyCount: 1),
    ]

    /// Rows copied per table, in copy order.
    ///
    /// Usage: `for (table, rows) in copied.rows { print(table, rows) }`
    public struct Summary: Sendable, Equatable {
        /// (table, rows) in the order they were copied.
        public var rows: [(table: String, count: Int)] = []

        /// Usage: `summary.count(of: "images")`
        public func count(of table: String) -> Int { rows.first { $0.table == table }?.count ?? 0 }

        public static func == (lhs: Summary, rhs: Summary) -> Bool {
            lhs.rows.map(\.table) == rhs.rows.map(\.table) && lhs.rows.map(\.count) == rhs.rows.map(\.count)
        }
    }

    /// Copies the SQLite index `source` into the PostgreSQL database of `target`, creating its
    /// schema if needed. Throws ``TagIndexError/invalidInput(_:)`` when the target already holds
    /// images or labels (it is never merged into).
    ///
    /// Usage: `let summary = try await IndexCopy.copy(from: try SQLiteIndex(readingFrom: url), to: session)`
    package static func copy(from source: SQLiteIndex, to target: PostgresSession, pageSize: Int = defaultPageSize) async throws -> Summary {
        guard pageSize >= 1 else { throw TagIndexError.invalidInput("a copy reads at least one row at a time") }
        try await PostgresSchema.migrate(target)
        let existing = try await target.all("SELECT (SELECT COUNT(*) FROM images) + (SELECT COUNT(*) FROM labels)") { try $0.decode(Int64.self) }
        guard existing.first == 0 else {
            throw TagIndexError.invalidInput("\(target.descriptor) already holds an index; copy into an empty database")
        }
        let summary = try await target.transaction { session in
            var summary = Summary()
            for table in tables {
                var count = 0
                var after: [DatabaseValue]? = nil
                while true {
                    let page = try source.guardingStorage { try readPage(table, after: after, pageSize: pageSize, source) }
                    if page.isEmpty { break }
                    try await insert(page, into: table, session)
                    count += page.count
                    after = Array(page[page.count - 1].prefix(table.keyCount))
                    if page.count < pageSize { break }
                }
                if table.hasIdentity {
                    try await session.execute("""
                        SELECT setval(pg_get_serial_sequence('\(table.name)', 'id'), COALESCE((SELECT MAX(id) FROM \(table.name)), 0) + 1, false)
                        """)
                }
                summary.rows.append((table.name, count))
            }
            return summary
        }
        // The copied rows' blocks into the compacted postings and prints that searches read
        // (until then, searches read the same rows from the tables themselves).
        try await PostgresPostings.compact(target)
        return summary
    }

    /// The next page of `table` after the key `after` (keyset pagination in primary-key order).
    static func readPage(_ table: Table, after: [DatabaseValue]?, pageSize: Int, _ source: SQLiteIndex) throws -> [[DatabaseValue]] {
        let keys = table.columns.prefix(table.keyCount)
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
        var arguments = StatementArguments()
        if let after {
            sql += " WHERE (\(keys.joined(separator: ", "))) > (\(keys.map { _ in "?" }.joined(separator: ", ")))"
            arguments = StatementArguments(after)
        }
        sql += " ORDER BY \(keys.joined(separator: ", ")) LIMIT \(pageSize)"
        return try source.database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (0..<table.columns.count).map { row[$0] as DatabaseValue }
            }
        }
    }

    /// One multi-row INSERT of `rows`, every value a bound parameter.
    static func insert(_ rows: [[DatabaseValue]], into table: Table, _ session: PostgresSession) async throws {
        var binds = PostgresBindings(capacity: rows.count * table.columns.count)
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        var parameter = 0
        for row in rows {
            var placeholders: [String] = []
            for (column, value) in zip(table.columns, row) {
                parameter += 1
                placeholders.append("$\(parameter)")
                bind(value, boolean: table.booleans.contains(column), into: &binds)
            }
            tuples.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        try await session.execute(
            "INSERT INTO \(table.name)(\(table.columns.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", "), binds)
    }

    /// A SQLite value as a PostgreSQL parameter: integers as bigint (or boolean), text as text,
    /// blobs as bytea; `meta.value` (untyped in SQLite) arrives as text through the column's type.
    static func bind(_ value: DatabaseValue, boolean: Bool, into binds: inout PostgresBindings) {
        switch value.storage {
        case .null:
            binds.appendNull()
        case .int64(let integer):
            if boolean { binds.append(integer != 0) } else { binds.append(integer) }
        case .double(let real):
            binds.append(real)
        case .string(let text):
            binds.append(text)
        case .blob(let data):
            binds.append(ByteBuffer(bytes: data))
        }
    }
}
