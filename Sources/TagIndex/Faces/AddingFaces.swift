import Foundation
import GRDB

extension SQLiteIndex {
    /// Classified images faces were never looked for in (no `image_faces` row), in path order,
    /// after `path` (exclusive; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try index.imagesWithoutFaces(after: last?.path, limit: 256)`
    public func imagesWithoutFaces(after path: String? = nil, limit: Int) throws -> [StoredImageFile] {
        try imagesWithoutRow(in: "image_faces", after: path, limit: limit)
    }

    /// Classified images with no row in `table` (keyed by `image_id`), in path order after `path`.
    func imagesWithoutRow(in table: String, after path: String?, limit: Int) throws -> [StoredImageFile] {
        try database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT path, content_hash FROM images
                    WHERE error_stage IS NULL AND content_hash IS NOT NULL AND path > ?
                      AND NOT EXISTS (SELECT 1 FROM \(table) WHERE image_id = images.id)
                    ORDER BY path LIMIT ?
                    """,
                arguments: [path ?? "", max(0, limit)])
                .map { StoredImageFile(path: $0[0], contentHash: $0[1]) }
        }
    }

    /// Classified images whose faces were looked for by the fast detector alone (not by
    /// `index --faces thorough`), in path order after `path`, at most `limit`, with their stored
    /// faces.
    ///
    /// Usage: `let page = try index.imagesNotLookedAtThoroughly(after: last?.path, limit: 64)`
    public func imagesNotLookedAtThoroughly(after path: String? = nil, limit: Int) throws -> [StoredFaces] {
        try database.read { db in
            try Row.fetchAll(
                db, sql: StoredFaces.pageQuery(rootCondition: "", faces: "f.thorough = 0", after: "?", limit: "?"),
                arguments: [path ?? "", max(0, limit)]
            ).compactMap(StoredFaces.init(row:))
        }
    }

    /// Adds faces to indexed images, in one transaction: each image (found by path, and only
    /// while its stored content hash is the one the faces were found in) that has no faces yet, or
    /// whose stored faces are the ones the found faces follow (``FacesFound/following``), gets them
    /// and, when any was found, the ``faceLabel`` at the best face's confidence beside the labels
    /// the model gave it, corrections applied as on any write. Returns how many images changed.
    /// Call it while holding the writer lock (inside an ``IndexRun``).
    ///
    /// Usage: `let added = try index.addFaces(found)`
    @discardableResult
    public func addFaces(_ found: [FacesFound]) throws -> Int {
        guard !found.isEmpty else { return 0 }
        return try guardingStorage { try database.write { db in
            var taxonomy = try self.taxonomy(db)
            var writer = BatchWriter(db: db)
            var added = 0
            for item in found {
                guard let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT i.id, ml.packed, il.packed, f.face_count, f.faces, f.descriptors, f.thorough FROM images AS i
                        LEFT JOIN model_labels AS ml ON ml.image_id = i.id
                        LEFT JOIN image_labels AS il ON il.image_id = i.id
                        LEFT JOIN image_faces AS f ON f.image_id = i.id
                        WHERE i.path = ? AND i.content_hash = ? AND i.error_stage IS NULL
                        """,
                    arguments: [item.path, item.contentHash])
                else { continue }
                let stored: FaceRow? = (row[3] as Int?).map { count in
                    FaceRow(count: count, faces: row[4], descriptors: row[5], thorough: (row[6] as Int? ?? 0) != 0)
                }
                guard let faceRow = item.row(replacing: stored) else { continue }
                let imageID: Int64 = row[0]
                if let confidence = item.faceLabelConfidence {
                    let face = try writer.labelIDs(for: [LabelConfidence(identifier: Self.faceLabel, confidence: confidence)], taxonomy: &taxonomy, index: self)
                    if !face.isEmpty {
                        // Until its first correction, an image's stored labels are the model's own.
                        let packed: Data = row[1] ?? row[2] ?? Data()
                        var model: Corrections.Labels = []
                        packed.withUnsafeBytes { bytes in
                            PackedLabels.forEach(bytes) { labelID, _, confidence in
                                if confidence > 0, Int64(labelID) != face[0].labelID { model.append((Int64(labelID), confidence)) }
                            }
                        }
                        model += face
                        let anyCorrections = try Corrections.anyStored(db)
                        let corrected = anyCorrections
                            ? try Corrections.correct(model, contentHash: item.contentHash, writer: &writer, taxonomy: &taxonomy, index: self)
                            : nil
                        let (confidence, best) = BatchWriter.rollUp(corrected ?? model, taxonomy: taxonomy)
                        try writer.replaceObservations(imageID, confidence: confidence, best: best)
                        try db.execute(sql: "UPDATE images SET top_confidence = ? WHERE id = ?", arguments: [best.values.max(), imageID])
                        if anyCorrections { try Corrections.keepModelLabels(corrected == nil ? nil : model, imageID: imageID, db) }
                    }
                }
                try writer.storeFaceRow(imageID, faceRow)
                added += 1
            }
            try writer.flushCounts()
            return added
        } }
    }
}
