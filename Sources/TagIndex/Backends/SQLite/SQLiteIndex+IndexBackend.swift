import Foundation

extension SQLiteIndex: IndexBackend {
    /// Nothing to close: the SQLite connection goes with the object.
    ///
    /// Usage: `await index.close()`
    public func close() async {}

    /// A SQLite file is never disconnected.
    ///
    /// Usage: `index.isConnectionClosed == false`
    public var isConnectionClosed: Bool { false }

    /// The number of labels with at least one image.
    ///
    /// Usage: `let inUse = try index.labelsInUseCount()`
    public func labelsInUseCount() throws -> Int { try labelImageCounts().count }

    /// The file's size with its write-ahead log and shared-memory file.
    ///
    /// Usage: `let bytes = try index.databaseBytes()`
    public func databaseBytes() throws -> Int64 {
        ["", "-wal", "-shm"].reduce(Int64(0)) { total, suffix in
            total + (((try? FileManager.default.attributesOfItem(atPath: location + suffix))?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }
}
