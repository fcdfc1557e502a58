import Foundation
import GRDB

/// An indexed image whose stored faces have no descriptors yet (indexed before the index
/// recognised people): what an indexer needs to describe them without detecting or classifying
/// again.
///
/// Usage: `for image in try index.imagesWithUndescribedFaces(limit: 64) { print(image.faces.count) }`
public struct StoredFaces: Sendable, Hashable, StoredContent {
    /// The stored path. Usage: `image.path`
    public var path: String
    /// The content hash stored with it. Usage: `image.contentHash`
    public var contentHash: String
    /// The upright full-size picture's width and height, in which the boxes are. Usage: `image.width`
    public var width: Int
    /// Usage: `image.height`
    public var height: Int
    /// The stored faces, in their stored order. Usage: `image.faces.map(\.width)`
    public var faces: [IndexedFace]

    /// Usage: `StoredFaces(path: "/photos/a.jpg", contentHash: hash, width: 4032, height: 3024, faces: faces)`
    public init(path: String, contentHash: String, width: Int, height: Int, faces: [IndexedFace]) {
        self.path = path; self.contentHash = contentHash; self.width = width; self.height = height; self.faces = faces
    }

    /// The SQL both backends page with (`?` / `$n` placeholders written in by the caller): path,
    /// content hash, size and faces of classified images whose faces have no descriptors.
    package static func pageQuery(rootCondition: String, after: String, limit: String) -> String {
        pageQuery(rootCondition: rootCondition, faces: "f.face_count > 0 AND f.descriptors IS NULL", after: after, limit: limit)
    }

    /// The page query over classified images whose `image_faces` row (`f`) meets `faces`.
    package static func pageQuery(rootCondition: String, faces: String, after: String, limit: String) -> String {
        """
        SELECT i.path, i.content_hash, i.width, i.height, f.faces FROM images AS i JOIN image_faces AS f ON f.image_id = i.id
        WHERE \(rootCondition) i.error_stage IS NULL AND i.content_hash IS NOT NULL AND \(faces) AND i.path > \(after)
        ORDER BY i.path LIMIT \(limit)
        """
    }

    /// The statement both backends store descriptors with: only while the image still has this
    /// content and these very faces, and no descriptors yet. The placeholders appear in the order
    /// descriptors, faces, path, hash (what `?` placeholders bind by).
    package static func updateStatement(descriptors: String, path: String, hash: String, faces: String) -> String {
        """
        UPDATE image_faces SET descriptors = \(descriptors)
        WHERE descriptors IS NULL AND faces = \(faces)
          AND image_id = (SELECT id FROM images WHERE path = \(path) AND content_hash = \(hash) AND error_stage IS NULL)
        """
    }
}

extension StoredFaces {
    /// A row of ``pageQuery(rootCondition:faces:after:limit:)``; nil when its faces blob is damaged.
    init?(row: Row) {
        guard let faces = IndexedFace.decode(row[4]) else { return nil }
        self.init(path: row[0], contentHash: row[1], width: row[2] ?? 0, height: row[3] ?? 0, faces: faces)
    }
}

extension SQLiteIndex {
    /// Classified images with faces but no descriptors, in path order after `path` (exclusive;
    /// nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try index.imagesWithUndescribedFaces(after: last?.path, limit: 64)`
    public func imagesWithUndescribedFaces(after path: String? = nil, limit: Int) throws -> [StoredFaces] {
        try database.read { db in
            try Row.fetchAll(db, sql: StoredFaces.pageQuery(rootCondition: "", after: "?", limit: "?"), arguments: [path ?? "", max(0, limit)])
                .compactMap(StoredFaces.init(row:))
        }
    }

    /// Stores the descriptors of faces stored without them, in one transaction: each image (by
    /// path, while its content hash and faces are the ones given and it has no descriptors yet)
    /// gets them. Returns how many images got descriptors. Call it while holding the writer lock.
    ///
    /// Usage: `let described = try index.addDescriptors(found)`
    @discardableResult
    public func addDescriptors(_ found: [FacesFound]) throws -> Int {
        let rows = found.compactMap { item in IndexedFace.encodeDescriptors(item.faces).map { (item, $0) } }
        guard !rows.isEmpty else { return 0 }
        return try guardingStorage { try database.write { db in
            var described = 0
            for (item, descriptors) in rows {
                try db.execute(
                    sql: StoredFaces.updateStatement(descriptors: "?", path: "?", hash: "?", faces: "?"),
                    arguments: [descriptors, IndexedFace.encode(item.faces), item.path, item.contentHash])
                described += db.changesCount
            }
            return described
        } }
    }
}
