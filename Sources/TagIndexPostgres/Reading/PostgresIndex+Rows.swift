import TagIndex
import Foundation
import GRDB
import PostgresNIO

extension PostgresIndex {
    /// One page of `table` in primary-key order after `key` (keyset pagination, text keys in byte
    /// order as on SQLite), as SQLite values: booleans 0/1, integers as Int64.
    ///
    /// Usage: `let page = try await index.rows(of: IndexCopy.tables[0], after: nil, limit: 500)`
    public func rows(of table: IndexCopy.Table, after key: [DatabaseValue]?, limit: Int) async throws -> [[DatabaseValue]] {
        let keys = table.columns.prefix(table.keyCount).map { table.textKeys.contains($0) ? "\($0) COLLATE \"C\"" : $0 }
        var sql = "SELECT \(table.columns.joined(separator: ", ")) FROM \(table.name)"
        var binds = PostgresBindings()
        if let key {
            let placeholders = (1...key.count).map { "$\($0)" }.joined(separator: ", ")
            sql += " WHERE (\(keys.joined(separator: ", "))) > (\(placeholders))"
            for value in key { PostgresCopyTarget.bind(value, boolean: false, into: &binds) }
        }
        sql += " ORDER BY \(keys.joined(separator: ", ")) LIMIT \(limit)"
        return try await session.all(sql, binds) { row in
            try row.map { cell -> DatabaseValue in try Self.databaseValue(cell) }
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
}
