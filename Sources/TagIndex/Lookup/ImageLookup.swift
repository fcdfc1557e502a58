import Foundation
import GRDB

extension SQLiteIndex {
    /// The path of the image with id `imageID` (see ``SearchHit/imageID``), or nil when no indexed
    /// file has that id (never indexed, or removed since).
    ///
    /// ```swift
    /// if let path = try index.imagePath(forID: hit.imageID) { print(path) }
    /// ```
    public func imagePath(forID imageID: Int64) throws -> String? {
        try guardingStorage {
            try database.read { db in
                try String.fetchOne(db, sql: "SELECT path FROM images WHERE id = ?", arguments: [imageID])
            }
        }
    }

    /// The id of the indexed file at `path`, or nil when it is not indexed.
    ///
    /// ```swift
    /// let id = try index.imageID(forPath: "/photos/a.jpg")
    /// ```
    public func imageID(forPath path: String) throws -> Int64? {
        try guardingStorage {
            try database.read { db in
                try Int64.fetchOne(db, sql: "SELECT id FROM images WHERE path = ?", arguments: [path])
            }
        }
    }

    /// The stored labels of several images in one read, each list highest subtree confidence first
    /// (as ``labels(forPath:)``); images without labels are absent from the result.
    ///
    /// ```swift
    /// let labels = try index.labels(forImageIDs: page.hits.map(\.imageID))
    /// ```
    public func labels(forImageIDs imageIDs: [Int64]) throws -> [Int64: [ImageLabel]] {
        guard !imageIDs.isEmpty else { return [:] }
        return try guardingStorage {
            try database.read { db in
                let taxonomy = try taxonomy(db)
                var labels: [Int64: [ImageLabel]] = [:]
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT image_id, packed FROM image_labels WHERE image_id IN (SELECT value FROM json_each(?))",
                    arguments: [SQLiteDialect.json(imageIDs)])
                while let row = try rows.next() {
                    labels[row[0]] = Self.imageLabels(packed: row[1], taxonomy: taxonomy)
                }
                return labels
            }
        }
    }

    /// A value that changes whenever an index run adds, re-classifies or removes a file: for
    /// caching what is computed from the images' contents (near-duplicate groups, say). A moved or
    /// touched file keeps its id and labels, and the version.
    ///
    /// ```swift
    /// if try index.contentVersion() != cachedVersion { recompute() }
    /// ```
    public func contentVersion() throws -> IndexContentVersion {
        try guardingStorage {
            try database.read { db in
                let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(MAX(indexed_at), 0), COALESCE(MAX(id), 0) FROM images")!
                return IndexContentVersion(imageCount: row[0], lastIndexed: row[1], highestID: row[2])
            }
        }
    }
}

/// What ``SQLiteIndex/contentVersion()`` compares: the image count, the latest indexing time and the
/// highest image id. A removal lowers the count; an addition raises the highest id; a
/// re-classification re-stamps its row's indexing time.
///
/// ```swift
/// let version = try index.contentVersion()
/// ```
public struct IndexContentVersion: Sendable, Hashable {
    /// Rows in `images` (classified and failed).
    public var imageCount: Int
    /// The latest `indexed_at` (microseconds since 1970).
    public var lastIndexed: Int64
    /// The highest image id given out so far.
    public var highestID: Int64

    /// Memberwise, for the backends of this package.
    package init(imageCount: Int, lastIndexed: Int64, highestID: Int64) {
        self.imageCount = imageCount
        self.lastIndexed = lastIndexed
        self.highestID = highestID
    }
}
