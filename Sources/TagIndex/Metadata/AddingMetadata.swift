import Foundation
import GRDB

/// The metadata read from an indexed image's file, for an image indexed before the index stored
/// metadata.
///
/// Usage: `MetadataFound(path: image.path, contentHash: image.contentHash, metadata: read)`
public struct MetadataFound: Sendable, Hashable {
    /// The stored path. Usage: `found.path`
    public var path: String
    /// The content hash of the bytes it was read from (stored only while the image still has it).
    public var contentHash: String
    /// What was read. Usage: `found.metadata.taken?.iso8601`
    public var metadata: IndexedMetadata

    /// Usage: `MetadataFound(path: "/photos/a.jpg", contentHash: hash, metadata: read)`
    public init(path: String, contentHash: String, metadata: IndexedMetadata) {
        self.path = path; self.contentHash = contentHash; self.metadata = metadata
    }
}

extension SQLiteIndex {
    /// Classified images whose metadata was never read (no `image_metadata` row), in path order,
    /// after `path` (exclusive; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try index.imagesWithoutMetadata(after: last?.path, limit: 256)`
    public func imagesWithoutMetadata(after path: String? = nil, limit: Int) throws -> [StoredImageFile] {
        try imagesWithoutRow(in: "image_metadata", after: path, limit: limit)
    }

    /// Stores metadata for images indexed without it, in one transaction: each image (by path,
    /// while its stored content hash is the one the metadata was read from and it has none yet).
    /// Returns how many images got it. Call it while holding the writer lock (inside a run).
    ///
    /// Usage: `let added = try index.addMetadata(found)`
    @discardableResult
    public func addMetadata(_ found: [MetadataFound]) throws -> Int {
        guard !found.isEmpty else { return 0 }
        return try guardingStorage { try database.write { db in
            var writer = BatchWriter(db: db)
            var added = 0
            for item in found {
                guard let imageID = try Int64.fetchOne(
                    db,
                    sql: """
                        SELECT id FROM images
                        WHERE path = ? AND content_hash = ? AND error_stage IS NULL
                          AND NOT EXISTS (SELECT 1 FROM image_metadata WHERE image_id = images.id)
                        """,
                    arguments: [item.path, item.contentHash])
                else { continue }
                try writer.storeMetadata(imageID, item.metadata)
                added += 1
            }
            return added
        } }
    }
}
