import Foundation
import PostgresNIO
import TagIndex

extension PostgresIndexWorker {
    /// Classified images under the run's roots whose metadata was never read (no
    /// `image_metadata` row), in path order after `path` (a library path; nil: from the start),
    /// at most `limit`; paths as the index stores them.
    ///
    /// Usage: `let page = try await worker.imagesWithoutMetadata(after: last?.path, limit: 256)`
    public func imagesWithoutMetadata(after path: String?, limit: Int) async throws -> [StoredImageFile] {
        try await imagesWithoutRow(in: "image_metadata", after: path, limit: limit)
    }

    /// Stores metadata for images indexed without it, in one transaction, as
    /// `SQLiteIndex.addMetadata` does in SQLite (by library path, while the stored content hash
    /// is the one given and the image has none yet). Returns how many images got it.
    ///
    /// Usage: `let added = try await worker.addMetadata(found)`
    @discardableResult
    public func addMetadata(_ found: [MetadataFound]) async throws -> Int {
        guard !found.isEmpty else { return 0 }
        return try await session.transaction { session in
            var rows: [(imageID: Int64, metadata: IndexedMetadata)] = []
            for item in found.sorted(by: { $0.path < $1.path }) {
                var binds = PostgresBindings()
                binds.append(item.path)
                binds.append(item.contentHash)
                let ids = try await session.all("""
                    SELECT id FROM images
                    WHERE path = $1 AND content_hash = $2 AND error_stage IS NULL
                      AND NOT EXISTS (SELECT 1 FROM image_metadata WHERE image_id = images.id)
                    """, binds) { try $0.decode(Int64.self) }
                if let id = ids.first { rows.append((id, item.metadata)) }
            }
            try await PostgresBatchWriter.insertMetadata(rows, session)
            return rows.count
        }
    }
}
