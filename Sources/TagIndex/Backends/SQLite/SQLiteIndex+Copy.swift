import Foundation
import GRDB

extension SQLiteIndex {
    /// One page of `table` in primary-key order after `key` (keyset pagination), as stored.
    ///
    /// Usage: `let page = try index.rows(of: IndexCopy.tables[0], after: nil, limit: 500)`
    public func rows(of table: IndexCopy.Table, after key: [DatabaseValue]?, limit: Int) throws -> [[DatabaseValue]] {
        let keys = table.columns.prefix(table.keyCount)
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
        var arguments = StatementArguments()
        if let key {
            sql += " WHERE (\(keys.joined(separator: ", "))) > (\(keys.map { _ in "?" }.joined(separator: ", ")))"
            arguments = StatementArguments(key)
        }
        sql += " ORDER BY \(keys.joined(separator: ", ")) LIMIT \(limit)"
        return try guardingStorage { try database.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                (0..<table.columns.count).map { row[$0] as DatabaseValue }
            }
        } }
    }
}

/// A new SQLite file as the target of a copy (``IndexCopy``): written beside its final place
/// under a temporary name and renamed when complete, so an interrupted copy leaves no index behind.
/// Something already at the path is refused: an index is never merged into.
///
/// Usage: `let copied = try await IndexCopy.copy(from: postgresIndex, to: SQLiteCopyTarget(url))`
public struct SQLiteCopyTarget: IndexCopyTarget {
    /// Where the new file goes.
    public let url: URL

    /// Usage: `let target = SQLiteCopyTarget(URL(fileURLWithPath: "photos.sqlite"))`
    public init(_ url: URL) {
        self.url = url
    }

    /// Creates the file's schema, writes every page, builds the posting blocks and the label text
    /// index from the copied rows, and renames the file into place.
    ///
    /// Usage: `try await target.receiveCopy { write in try await write(rows, table) }`
    public func receiveCopy(_ fill: (_ write: (_ rows: [[DatabaseValue]], _ table: IndexCopy.Table) async throws -> Void) async throws -> Void) async throws {
        let path = url.path
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TagIndexError.invalidInput("\(path) already exists; copy into a new file")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let partial = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: partial) }
        let queue = try DatabaseQueue(path: partial.path)
        do {
            try Schema.migrator.migrate(queue)
            try await fill { rows, table in try Self.write(rows, into: table, queue) }
            try Self.deriveStructures(queue)
            try queue.close()
            try FileManager.default.moveItem(at: partial, to: url)
        } catch {
            try? queue.close()
            throw error
        }
    }

    /// What SQLite derives from the copied rows: posting blocks and the label text index.
    private static func deriveStructures(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try Postings.rebuild(db)
            try db.execute(sql: """
                DELETE FROM label_text;
                INSERT INTO label_text(rowid, identifier, display_name, synonyms) SELECT id, identifier, display_name, synonyms FROM labels;
                """)
        }
    }

    private static func write(_ rows: [[DatabaseValue]], into table: IndexCopy.Table, _ queue: DatabaseQueue) throws {
        try queue.write { db in
            let statement = try db.makeStatement(
                sql: "INSERT INTO \(table.name)(\(table.columns.joined(separator: ", "))) VALUES (\(table.columns.map { _ in "?" }.joined(separator: ", ")))")
            for row in rows {
                var values = row
                // meta.value holds integers on SQLite (the taxonomy generation is incremented there).
                if table.name == "meta", case .string(let text) = values[1].storage, let integer = Int64(text) {
                    values[1] = integer.databaseValue
                }
                try statement.execute(arguments: StatementArguments(values))
            }
        }
    }
}
