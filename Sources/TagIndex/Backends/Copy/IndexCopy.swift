import GRDB

/// Moves an index between backends without classifying anything again: every row of every table
/// of the schema both backends share, ids kept, so a copy answers every search as the original
/// does. It reads any ``IndexCopySource`` (every ``IndexBackend`` is one) and writes any
/// ``IndexCopyTarget``: SQLite to PostgreSQL and back, or a file into a new file.
///
/// Rows are read in primary-key order in pages of ``defaultPageSize`` rows (keyset pagination).
/// A target takes all of them or none: an interrupted copy leaves no index behind and can simply
/// be run again. `label_text` (SQLite's full-text index) and the postings are not copied: each
/// target builds its own from the copied rows.
///
/// Usage: `let copied = try await IndexCopy.copy(from: try SQLiteIndex(readingFrom: file), to: try IndexOpener.standard.copyTarget(location))`
public enum IndexCopy {
    /// Rows read and written per statement unless a copy says otherwise.
    ///
    /// Usage: `try await IndexCopy.copy(from: index, to: target, pageSize: IndexCopy.defaultPageSize)`
    public static let defaultPageSize = 500

    /// One table of the shared schema: its columns (key columns first) and how backends differ
    /// on it.
    ///
    /// Usage: `for table in IndexCopy.tables { print(table.name, table.columns) }`
    public struct Table: Sendable, Hashable {
        /// The table's name, the same on every backend.
        public var name: String
        /// Its columns, the primary key's first.
        public var columns: [String]
        /// How many of the first columns make the primary key.
        public var keyCount: Int
        /// Columns that are booleans on PostgreSQL (0/1 integers in SQLite).
        public var booleans: Set<String> = []
        /// Whether the database generates its ids (a server moves its sequence past the copied ids).
        public var hasIdentity = false
        /// Text key columns: every backend orders them by bytes, so keyset pagination agrees.
        public var textKeys: Set<String> { Set(columns.prefix(keyCount).filter { ["key", "content_hash", "label"].contains($0) }) }
    }

    /// In dependency order (referenced tables first).
    ///
    /// Usage: `IndexCopy.tables.map(\.name)`
    public static let tables: [Table] = [
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
        Table(name: "image_faces", columns: ["image_id", "face_count", "faces", "descriptors", "thorough"], keyCount: 1),
        Table(name: "image_metadata", columns: MetadataStorage.columns, keyCount: 1),
        Table(name: "people_corrections", columns: [
            "id", "kind", "content_hash", "face_number", "other_hash", "other_number", "name", "source", "priority", "made_at",
        ], keyCount: 1, hasIdentity: true),
        Table(name: "people", columns: [
            "id", "name", "name_key", "anchor_hash", "anchor_number", "face_count", "photo_count",
        ], keyCount: 1),
        Table(name: "face_people", columns: ["content_hash", "face_number", "person_id", "hidden"], keyCount: 2),
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

    /// Copies every table of `source` into `target`, which must be empty (it says why it is not).
    ///
    /// Usage: `let summary = try await IndexCopy.copy(from: source, to: target)`
    public static func copy(from source: any IndexCopySource, to target: any IndexCopyTarget, pageSize: Int = defaultPageSize) async throws -> Summary {
        guard pageSize >= 1 else { throw TagIndexError.invalidInput("a copy reads at least one row at a time") }
        var summary = Summary()
        try await target.receiveCopy { write in
            summary = Summary()
            for table in tables {
                var count = 0
                var after: [DatabaseValue]? = nil
                while true {
                    let page = try await source.rows(of: table, after: after, limit: pageSize)
                    if page.isEmpty { break }
                    try await write(page, table)
                    count += page.count
                    after = Array(page[page.count - 1].prefix(table.keyCount))
                    if page.count < pageSize { break }
                }
                summary.rows.append((table.name, count))
            }
        }
        return summary
    }
}

/// What ``IndexCopy`` reads: the rows of the shared schema, page by page. Every ``IndexBackend``
/// is one.
///
/// Usage: `let page = try await source.rows(of: IndexCopy.tables[0], after: nil, limit: 500)`
public protocol IndexCopySource: Sendable {
    /// One page of `table` in primary-key order after the key `after` (nil: from the start), at
    /// most `limit` rows, as SQLite values (booleans 0/1, text keys in byte order).
    ///
    /// Usage: `let page = try await index.rows(of: IndexCopy.tables[0], after: nil, limit: 500)`
    func rows(of table: IndexCopy.Table, after key: [DatabaseValue]?, limit: Int) async throws -> [[DatabaseValue]]
}

/// Where ``IndexCopy`` writes: a backend's empty index that takes every row of a copy or none.
///
/// Usage: `let target = try IndexOpener.standard.copyTarget(.sqlite(url))`
public protocol IndexCopyTarget: Sendable {
    /// Checks that the index is empty (throws ``TagIndexError/invalidInput(_:)`` saying why not),
    /// creates its schema, runs `fill` with a function that writes one page of rows into a table,
    /// then builds what this backend derives from the rows (postings, text indexes) and makes the
    /// copy visible, all or nothing.
    ///
    /// Usage: `try await target.receiveCopy { write in try await write(rows, table) }`
    func receiveCopy(_ fill: (_ write: (_ rows: [[DatabaseValue]], _ table: IndexCopy.Table) async throws -> Void) async throws -> Void) async throws
}
