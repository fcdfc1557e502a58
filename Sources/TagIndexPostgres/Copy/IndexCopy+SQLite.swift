import TagIndex
import Foundation
import GRDB
import PostgresNIO

extension IndexCopy {
    /// Copies the PostgreSQL index of `source` into a new SQLite file at `url`, then builds the
    /// structures only SQLite has (posting blocks, the label text index) from the copied rows.
    ///
    /// The file is written beside `url` under a temporary name and renamed when complete, so an
    /// interrupted copy leaves no index behind. Throws ``TagIndexError/invalidInput(_:)`` when
    /// something already exists at `url` (an index is never merged into).
    ///
    /// Usage: `let summary = try await IndexCopy.copy(from: session, toNewFile: URL(fileURLWithPath: "photos.sqlite"))`
    package static func copy(from source: PostgresSession, toNewFile url: URL, pageSize: Int = defaultPageSize) async throws -> Summary {
        guard pageSize >= 1 else { throw TagIndexError.invalidInput("a copy reads at least one row at a time") }
        let path = url.path
        guard !FileManager.default.fileExists(atPath: path) else {
            throw TagIndexError.invalidInput("\(path) already exists; copy into a new file")
        }
        let applied = try await PostgresSchema.appliedMigrations(source)
        guard applied.isSuperset(of: PostgresSchema.migrationIdentifiers) else {
            throw TagIndexError.invalidInput("\(source.descriptor) holds no TagIndex index (or one this version must upgrade first)")
        }
        let unknown = applied.subtracting(PostgresSchema.migrationIdentifiers)
        guard unknown.isEmpty else {
            throw PostgresBackendError.newerSchema(database: source.descriptor.description, unknownMigrations: unknown.sorted())
        }
        let partial = url.deletingLastPathComponent().appending(path: ".\(url.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: partial) }
        let queue = try DatabaseQueue(path: partial.path)
        do {
            try Schema.migrator.migrate(queue)
            var summary = Summary()
            for table in tables {
                var count = 0
                var after: [DatabaseValue]? = nil
                while true {
                    let page = try await readPage(table, after: after, pageSize: pageSize, source)
                    if page.isEmpty { break }
                    try writePage(page, into: table, queue)
                    count += page.count
                    after = Array(page[page.count - 1].prefix(table.keyCount))
                    if page.count < pageSize { break }
                }
                summary.rows.append((table.name, count))
            }
            try finishSQLite(queue)
            try queue.close()
            try FileManager.default.moveItem(at: partial, to: url)
            return summary
        } catch {
            try? queue.close()
            throw error
        }
    }

    /// The next page of `table` on PostgreSQL after the key `after`, as SQLite values.
    static func readPage(_ table: Table, after: [DatabaseValue]?, pageSize: Int, _ source: PostgresSession) async throws -> [[DatabaseValue]] {
        let keys = table.columns.prefix(table.keyCount).map { table.textKeys.contains($0) ? "\($0) COLLATE \"C\"" : $0 }
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
        var binds = PostgresBindings()
        if let after {
            let placeholders = (1...after.count).map { "$\($0)" }.joined(separator: ", ")
            sql += " WHERE (\(keys.joined(separator: ", "))) > (\(placeholders))"
            for value in after { bind(value, boolean: false, into: &binds) }
        }
        sql += " ORDER BY \(keys.joined(separator: ", ")) LIMIT \(pageSize)"
        return try await source.all(sql, binds) { row in
            try row.map { cell -> DatabaseValue in try databaseValue(cell) }
        }
    }

    /// A PostgreSQL value as SQLite stores it (booleans as 0/1, like the SQLite schema's).
    static func databaseValue(_ cell: PostgresCell) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
        case .bool: return (try cell.decode(Bool.self) ? 1 : 0).databaseValue
        case .float4, .float8: return try cell.decode(Double.self).databaseValue
        case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).databaseValue
        default: return try cell.decode(String.self).databaseValue
        }
    }

    private static func writePage(_ rows: [[DatabaseValue]], into table: Table, _ queue: DatabaseQueue) throws {
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

    /// What SQLite derives from the copied rows: posting blocks and the label text index.
    private static func finishSQLite(_ queue: DatabaseQueue) throws {
        try queue.write { db in
            try Postings.rebuild(db)
            try db.execute(sql: """
                DELETE FROM label_text;
                INSERT INTO label_text(rowid, identifier, display_name, synonyms) SELECT id, identifier, display_name, synonyms FROM labels;
                """)
        }
    }
}
