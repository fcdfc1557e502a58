import Foundation
import GRDB

/// The stored faces: table `image_faces(image_id PRIMARY KEY, face_count, faces, descriptors,
/// thorough)` (migrations v5, v8, v10, see ``Schema``). An image has a row when faces were looked
/// for (`face_count` 0 when none was found); no row means the detector did not run on it.
extension BatchWriter {
    /// Replaces the faces of an image, noting whether the thorough detector looked too; nil
    /// removes them (not looked for).
    mutating func storeFaces(_ imageID: Int64, _ faces: [IndexedFace]?, thorough: Bool = false) throws {
        try storeFaceRow(imageID, faces.map { FaceRow(faces: $0, thorough: thorough) })
    }

    /// Replaces the `image_faces` row of an image; nil removes it.
    mutating func storeFaceRow(_ imageID: Int64, _ row: FaceRow?) throws {
        try db.cachedStatement(sql: "DELETE FROM image_faces WHERE image_id = ?").execute(arguments: [imageID])
        guard let row else { return }
        try db.cachedStatement(sql: "INSERT INTO image_faces(image_id, face_count, faces, descriptors, thorough) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [imageID, row.count, row.faces, row.descriptors, row.thorough ? 1 : 0])
    }

    /// Copies the faces of `sourceID` onto `targetID` (same content).
    mutating func copyFaces(from sourceID: Int64, to targetID: Int64) throws {
        try db.execute(sql: "DELETE FROM image_faces WHERE image_id = ?", arguments: [targetID])
        try db.execute(
            sql: """
                INSERT INTO image_faces(image_id, face_count, faces, descriptors, thorough)
                SELECT ?, face_count, faces, descriptors, thorough FROM image_faces WHERE image_id = ?
                """,
            arguments: [targetID, sourceID])
    }
}

extension SQLiteIndex {
    /// The faces stored for an image, highest confidence first; nil when the image is not indexed
    /// or faces were not looked for.
    ///
    /// Usage: `let faces = try index.faces(forPath: "/photos/a.jpg") ?? []`
    public func faces(forPath path: String) throws -> [IndexedFace]? {
        try database.read { db in
            guard let row = try Row.fetchOne(
                db, sql: "SELECT faces, descriptors, content_hash FROM image_faces JOIN images ON images.id = image_id WHERE path = ?",
                arguments: [path]),
                let faces = IndexedFace.decode(row[0])
            else { return nil }
            let hash: String? = row[2]
            return IndexedFace.naming(IndexedFace.attaching(row[1], to: faces), try hash.map { try Self.facePeople(contentHash: $0, db) } ?? [:])
        }
    }
}
