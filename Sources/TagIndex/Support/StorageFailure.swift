import GRDB

extension TagIndexError {
    /// The ``storage(path:reason:)`` error for a SQLite failure that concerns the database file
    /// (disk full, read-only or missing location, I/O error, damaged file); nil for any other
    /// failure (a bug, a constraint), which is rethrown as it is.
    ///
    /// ```swift
    /// catch let error as DatabaseError { throw TagIndexError.storage(error, path: path) ?? error }
    /// ```
    static func storage(_ error: DatabaseError, path: String) -> TagIndexError? {
        let detail = error.message ?? "SQLite error \(error.extendedResultCode.rawValue)"
        let reason: String
        switch error.resultCode {
        case .SQLITE_FULL:
            reason = "the disk is full (\(detail)); nothing written before was lost: free some space and run the command again"
        case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM:
            reason = "it cannot be opened for writing (\(detail)); check that its folder exists and is writable, not on a read-only file system"
        case .SQLITE_IOERR:
            reason = "the disk reported an error (\(detail)); check that it is not full, read-only or disconnected, then run the command again"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            reason = "the file is damaged (\(detail)); move it away (or restore a backup) and index again"
        default:
            return nil
        }
        return .storage(path: path, reason: reason)
    }
}

extension SQLiteIndex {
    /// Runs `body`, turning SQLite failures about the database file into
    /// ``TagIndexError/storage(path:reason:)``.
    ///
    /// ```swift
    /// try guardingStorage { try database.write { db in ... } }
    /// ```
    package func guardingStorage<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw TagIndexError.storage(error, path: location) ?? error
        }
    }
}
