import GRDB
import GRDBSQLite

/// Steps a prepared GRDB statement with the SQLite C API.
///
/// Search loops read millions of rows; GRDB's generic cursors cost ~90 ns per
/// row on top of SQLite's ~65 ns (measured on the 1M-image benchmark), so the
/// few hot loops bind through GRDB and then call `sqlite3_step` and
/// `sqlite3_column_*` themselves. Everything else goes through GRDB.
enum RawScan {
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

/// Whether column 0 of the current row is not NULL.
func sqlite3ColumnIsNotNull(_ handle: OpaquePointer) -> Bool {
    sqlite3_column_type(handle, 0) != SQLITE_NULL
}
