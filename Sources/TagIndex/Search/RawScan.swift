import GRDB
import GRDBSQLite

/// Steps a prepared GRDB statement with the SQLite C API.
///
/// Search loops read millions of rows; GRDB's generic cursors cost ~90 ns per
/// row on top of SQLite's ~65 ns (measured on the 1M-image benchmark), so the
/// few hot loops bind through GRDB and then call `sqlite3_step` and
/// `sqlite3_column_*` themselves. Everything else goes through GRDB.
package enum RawScan {
    /// Binds `arguments` and calls `row` with the statement handle for each row.
    static func forEachRow(
        _ statement: Statement, arguments: StatementArguments, _ row: (OpaquePointer) -> Void
    ) throws {
        try statement.setArguments(arguments)
        let handle = statement.sqliteStatement
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: statement.sql)
            }
            row(handle)
        }
    }

    /// Binds three integers with the C API (no argument array: this runs once
    /// per probed image) and returns column 0 of the first row, if any.
    static func firstInt(_ statement: Statement, _ first: Int64, _ second: Int64, _ third: Int64) throws -> Int? {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, first)
        sqlite3_bind_int64(handle, 2, second)
        sqlite3_bind_int64(handle, 3, third)
        let code = sqlite3_step(handle)
        defer { sqlite3_reset(handle) }
        if code == SQLITE_ROW { return Int(sqlite3_column_int64(handle, 0)) }
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))), sql: statement.sql)
        }
        return nil
    }

    static func int(_ handle: OpaquePointer, _ column: Int32) -> Int {
        Int(sqlite3_column_int64(handle, column))
    }

    /// The blob of a column, valid until the next step.
    static func blob(_ handle: OpaquePointer, _ column: Int32) -> UnsafeRawBufferPointer {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let base = sqlite3_column_blob(handle, column), count > 0 else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base, count: count)
    }
}

