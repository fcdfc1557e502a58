import TagIndex
import Foundation
import PostgresNIO

extension PostgresIndexWorker {
    /// Classified images under the run's roots that faces were never looked for in (no
    /// `image_faces` row), in path order after `path` (a library path; nil: from the start), at
    /// most `limit`; paths as the index stores them (library paths).
    ///
    /// Usage: `let page = try await worker.imagesWithoutFaces(after: last?.path, limit: 256)`
    public func imagesWithoutFaces(after path: String?, limit: Int) async throws -> [StoredImageFile] {
        try await imagesWithoutRow(in: "image_faces", after: path, limit: limit)
    }

    /// Classified images under the run's roots whose stored faces have no descriptors, in path
    /// order after `path` (a library path; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try await worker.imagesWithUndescribedFaces(after: last?.path, limit: 64)`
    public func imagesWithUndescribedFaces(after path: String?, limit: Int) async throws -> [StoredFaces] {
        try await storedFaces(where: "f.face_count > 0 AND f.descriptors IS NULL", after: path, limit: limit)
    }

    /// Classified images under the run's roots whose faces the fast detector alone looked for (not
    /// `index --faces thorough`), in path order after `path`, at most `limit`, with their faces.
    ///
    /// Usage: `let page = try await worker.imagesNotLookedAtThoroughly(after: last?.path, limit: 64)`
    public func imagesNotLookedAtThoroughly(after path: String?, limit: Int) async throws -> [StoredFaces] {
        try await storedFaces(where: "f.thorough = 0", after: path, limit: limit)
    }

    /// Classified images under the run's roots whose `image_faces` row (`f`) meets `faces`.
    private func storedFaces(where faces: String, after path: String?, limit: Int) async throws -> [StoredFaces] {
        var binds = PostgresBindings()
        let condition = run.rootCondition(column: "i.path", &binds)
        binds.append(path ?? "")
        binds.append(Int64(max(0, limit)))
        let sql = StoredFaces.pageQuery(rootCondition: condition + " AND", faces: faces, after: "$\(binds.count - 1)", limit: "$\(binds.count)")
        let rows: [StoredFaces?] = try await session.run { session in
            try await session.all(sql, binds) { row in
                let (path, hash, width, height, faces) = try row.decode((String, String, Int?, Int?, ByteBuffer).self)
                return IndexedFace.decode(Data(faces.readableBytesView)).map {
                    StoredFaces(path: path, contentHash: hash, width: width ?? 0, height: height ?? 0, faces: $0)
                }
            }
        }
        return rows.compactMap { $0 }
    }

    /// Stores descriptors for faces stored without them, in one transaction, as
    /// `SQLiteIndex.addDescriptors` does: only while the image's content hash and faces are the
    /// ones given and it has no descriptors yet. Returns how many images got them.
    ///
    /// Usage: `let described = try await worker.addDescriptors(found)`
    @discardableResult
    public func addDescriptors(_ found: [FacesFound]) async throws -> Int {
        let rows = found.compactMap { item in IndexedFace.encodeDescriptors(item.faces).map { (item, $0) } }
        guard !rows.isEmpty else { return 0 }
        let sql = StoredFaces.updateStatement(descriptors: "$1", path: "$2", hash: "$3", faces: "$4") + " RETURNING image_id"
        return try await session.transaction { session in
            var described = 0
            for (item, descriptors) in rows {
                var binds = PostgresBindings()
                binds.append(ByteBuffer(bytes: descriptors))
                binds.append(item.path)
                binds.append(item.contentHash)
                binds.append(ByteBuffer(bytes: IndexedFace.encode(item.faces)))
                described += try await session.all(sql, binds) { try $0.decode(Int64.self) }.count
            }
            return described
        }
    }

    /// Classified images under the run's roots with no row in `table` (keyed by `image_id`), in
    /// path order after `path`.
    func imagesWithoutRow(in table: String, after path: String?, limit: Int) async throws -> [StoredImageFile] {
        var binds = PostgresBindings()
        let condition = run.rootCondition(column: "path", &binds)
        binds.append(path ?? "")
        binds.append(Int64(max(0, limit)))
        let after = binds.count - 1, count = binds.count
        return try await session.run { session in
            try await session.all("""
                SELECT path, content_hash FROM images
                WHERE \(condition) AND error_stage IS NULL AND content_hash IS NOT NULL AND path > $\(after)
                  AND NOT EXISTS (SELECT 1 FROM \(table) WHERE image_id = images.id)
                ORDER BY path LIMIT $\(count)
                """, binds) { try $0.decode((String, String).self) }
        }.map { StoredImageFile(path: $0.0, contentHash: $0.1) }
    }

    /// Adds faces to indexed images, in one transaction, as `SQLiteIndex.addFaces` does in
    /// SQLite: an image (by library path, while its stored content hash is the one given) that
    /// has no faces yet, or whose stored faces are those the found ones follow, gets them and,
    /// when any was found, the face label at the best face's confidence beside the model's
    /// labels, corrections applied. Returns how many images changed.
    ///
    /// Usage: `let added = try await worker.addFaces(found)`
    @discardableResult
    public func addFaces(_ found: [FacesFound]) async throws -> Int {
        guard !found.isEmpty else { return 0 }
        let sorted = found.sorted { $0.path < $1.path }
        let taxonomy = run.state.withLock { $0.taxonomy }
        let (added, updatedTaxonomy) = try await session.transaction { session -> (Int, TaxonomySnapshot?) in
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            try await writer.shareCorrectionsLock()
            var added = 0
            for item in sorted {
                var binds = PostgresBindings()
                binds.append(item.path)
                binds.append(item.contentHash)
                let rows = try await session.all("""
                    SELECT i.id, ml.packed, il.packed, f.face_count, f.faces, f.descriptors, f.thorough FROM images AS i
                    LEFT JOIN model_labels AS ml ON ml.image_id = i.id
                    LEFT JOIN image_labels AS il ON il.image_id = i.id
                    LEFT JOIN image_faces AS f ON f.image_id = i.id
                    WHERE i.path = $1 AND i.content_hash = $2 AND i.error_stage IS NULL
                    FOR UPDATE OF i
                    """, binds) { row in
                    let (imageID, modelPacked, imagePacked, count, faces, descriptors, thorough) = try row.decode(
                        (Int64, ByteBuffer?, ByteBuffer?, Int32?, ByteBuffer?, ByteBuffer?, Int32?).self)
                    let stored = count.map { count in
                        FaceRow(
                            count: Int(count), faces: Data(faces?.readableBytesView ?? ByteBuffer().readableBytesView),
                            descriptors: descriptors.map { Data($0.readableBytesView) }, thorough: (thorough ?? 0) != 0)
                    }
                    return (imageID, modelPacked, imagePacked, stored)
                }
                guard let (imageID, modelPacked, imagePacked, stored) = rows.first, let faceRow = item.row(replacing: stored) else { continue }
                if let confidence = item.faceLabelConfidence {
                    let face = try await writer.labelIDs(for: [LabelConfidence(identifier: SQLiteIndex.faceLabel, confidence: confidence)])
                    if !face.isEmpty {
                        // Until its first correction, an image's stored labels are the model's own.
                        var model: [(labelID: Int64, confidence: Int)] = []
                        let packed = (modelPacked ?? imagePacked).map { Array($0.readableBytesView) } ?? []
                        packed.withUnsafeBytes { bytes in
                            PackedLabels.forEach(bytes) { labelID, _, confidence in
                                if confidence > 0, Int64(labelID) != face[0].labelID { model.append((Int64(labelID), confidence)) }
                            }
                        }
                        model += face
                        let corrected = try await writer.corrections(model, contentHash: item.contentHash)
                        let (confidence, best) = BatchWriter.rollUp(corrected ?? model, taxonomy: writer.taxonomy)
                        try await writer.replaceObservations(imageID, confidence: confidence, best: best)
                        var top = PostgresBindings()
                        top.append(imageID)
                        top.append(Int64(best.values.max() ?? -1))
                        try await session.execute("UPDATE images SET top_confidence = NULLIF($2::bigint, -1) WHERE id = $1", top)
                        try await writer.keepModelLabels(corrected == nil ? nil : model, imageID: imageID)
                    }
                }
                var insert = PostgresBindings()
                insert.append(imageID)
                insert.append(Int64(faceRow.count))
                insert.append(ByteBuffer(bytes: faceRow.faces))
                insert.append(faceRow.descriptors.map { ByteBuffer(bytes: $0) } ?? ByteBuffer())
                insert.append(Int32(faceRow.thorough ? 1 : 0))
                try await session.execute("""
                    INSERT INTO image_faces(image_id, face_count, faces, descriptors, thorough) VALUES ($1, $2, $3, NULLIF($4::bytea, ''::bytea), $5)
                    ON CONFLICT(image_id) DO UPDATE SET face_count = excluded.face_count, faces = excluded.faces,
                        descriptors = excluded.descriptors, thorough = excluded.thorough
                    """, insert)
                added += 1
            }
            try await writer.flushCounts()
            return (added, writer.createdLabels ? writer.taxonomy : nil)
        }
        if let updatedTaxonomy { run.state.withLock { $0.taxonomy = updatedTaxonomy } }
        return added
    }
}
