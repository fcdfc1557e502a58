import CClassifyKernels
import GRDB
import GRDBSQLite

/// Reads stored feature prints (fp16, see ``FeaturePrint``) straight from `images`, in blocks.
///
/// The similarity scan visits every print; GRDB's cursors and a `Data` per row would cost more
/// than the dot products, so rows are stepped with the SQLite C API (like ``RawScan``) and each
/// blob is copied into a reused block of `blockSize` prints. Memory stays at one block
/// (2.5 MiB) whatever the library size.
package enum PrintBlocks {
    /// Prints per block.
    package static let blockSize = 1024
    static let dimension = FeaturePrint.dimension

    /// Calls `body(ids, halves, count)` for consecutive blocks of prints in image-id order.
    /// `candidates` (ascending ids) restricts the scan; nil reads every stored print.
    package static func forEach(
        _ db: Database, candidates: [Int64]?,
        _ body: (_ ids: UnsafeBufferPointer<Int64>, _ halves: UnsafeBufferPointer<UInt16>, _ count: Int) throws -> Void
    ) throws {
        var ids = [Int64](repeating: 0, count: blockSize)
        var halves = [UInt16](repeating: 0, count: blockSize * dimension)
        var count = 0
        func flush() throws {
            guard count > 0 else { return }
            try ids.withUnsafeBufferPointer { idBuffer in
                try halves.withUnsafeBufferPointer { try body(idBuffer, $0, count) }
            }
            count = 0
        }
        func append(_ id: Int64, _ handle: OpaquePointer, column: Int32) throws {
            let blob = RawScan.blob(handle, column)
            guard blob.count == dimension * 2 else { return }
            ids[count] = id
            halves.withUnsafeMutableBytes { destination in
                (destination.baseAddress! + count * dimension * 2).copyMemory(from: blob.baseAddress!, byteCount: blob.count)
            }
            count += 1
            if count == blockSize { try flush() }
        }
        let maximumID = try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM images") ?? 0
        if let candidates, Int64(candidates.count) * 8 < maximumID {
            // Fewer than 1 in 8 images: probing each by primary key (~8 scanned rows each) is cheaper.
            let statement = try db.cachedStatement(sql: "SELECT feature_print FROM images WHERE id = ?")
            let handle = statement.sqliteStatement
            for id in candidates {
                sqlite3_reset(handle)
                sqlite3_bind_int64(handle, 1, id)
                if sqlite3_step(handle) == SQLITE_ROW { try append(id, handle, column: 0) }
            }
            sqlite3_reset(handle)
        } else {
            // Most images: one pass over the table, merged with the sorted candidates.
            let statement = try db.cachedStatement(
                sql: "SELECT id, feature_print FROM images WHERE feature_print IS NOT NULL ORDER BY id")
            var next = 0
            var failure: Error?
            try RawScan.forEachRow(statement, arguments: []) { handle in
                guard failure == nil else { return }
                let id = sqlite3_column_int64(handle, 0)
                if let candidates {
                    while next < candidates.count && candidates[next] < id { next += 1 }
                    guard next < candidates.count && candidates[next] == id else { return }
                }
                do { try append(id, handle, column: 1) } catch { failure = error }
            }
            if let failure { throw failure }
        }
        try flush()
    }

    /// `out[q * count + r]` = dot(queries[q], halves[r]) for fp32 queries and fp16 rows.
    package static func dot(
        queries: UnsafePointer<Float>, queryCount: Int, rows: UnsafePointer<UInt16>, count: Int,
        into out: UnsafeMutablePointer<Float>
    ) {
        cls_half_dot_block(queries, queryCount, rows, count, dimension, out)
    }
}
