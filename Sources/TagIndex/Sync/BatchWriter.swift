import ClassifySupport
import Foundation
import GRDB

extension SQLiteIndex {
    /// Writes classifications and failures in one transaction.
    ///
    /// An entry replaces whatever the index held for its path. Observations
    /// below ``storageFloor`` are dropped; each stored label also raises the
    /// subtree confidence of its ancestors. An identifier missing from the
    /// taxonomy is added as a top-level label named after it. Commit every few
    /// hundred files or about a second: each batch is durable on its own.
    ///
    /// ```swift
    /// try index.write(batch: [.classified(result), .failed(failure)])
    /// ```
    ///
    /// A write the disk refuses (full, read-only) throws ``TagIndexError/storage(path:reason:)``
    /// and changes nothing.
    public func write(batch: [IndexEntry]) throws {
        guard !batch.isEmpty else { return }
        // Encode outside the transaction: it only checks and packs values.
        let featurePrints: [Data?] = try batch.map { entry in
            guard case .classified(let result) = entry, let vector = result.featurePrint else { return nil }
            return Data(try FeaturePrint.encode(vector))
        }
        try guardingStorage { try database.write { db in
            var taxonomy = try self.taxonomy(db)
            var writer = BatchWriter(db: db)
            // One look per batch: without corrections, writing an image costs nothing more.
            let corrected = try Corrections.anyStored(db)
            for (entry, featurePrint) in zip(batch, featurePrints) {
                switch entry {
                case .classified(let result):
                    let labelIDs = try writer.labelIDs(for: result.observations, taxonomy: &taxonomy, index: self)
                    guard corrected else {
                        try writer.store(result, labelIDs: labelIDs, featurePrint: featurePrint, taxonomy: taxonomy)
                        break
                    }
                    // What a person corrected applies to whatever the model says of this content now.
                    let kept = try Corrections.correct(
                        labelIDs, contentHash: result.contentHash, writer: &writer, taxonomy: &taxonomy, index: self)
                    let imageID = try writer.store(result, labelIDs: kept ?? labelIDs, featurePrint: featurePrint, taxonomy: taxonomy)
                    try Corrections.keepModelLabels(kept == nil ? nil : labelIDs, imageID: imageID, db)
                case .failed(let failure):
                    let imageID = try writer.store(failure)
                    if corrected { try Corrections.keepModelLabels(nil, imageID: imageID, db) }
                }
                CrashPoints.reach(.entryWritten)
            }
            try writer.flushCounts()
        } }
        CrashPoints.reach(.batchCommitted)
    }

    /// Removes the given paths (and their labels); returns how many were indexed.
    ///
    /// ```swift
    /// let removed = try index.remove(paths: ["/photos/old.jpg"])
    /// ```
    @discardableResult
    public func remove(paths: [String]) throws -> Int {
        try guardingStorage { try database.write { db in
            var writer = BatchWriter(db: db)
            var removed = 0
            for path in paths {
                guard let id = try Int64.fetchOne(
                    db.cachedStatement(sql: "SELECT id FROM images WHERE path = ?"), arguments: [path])
                else { continue }
                try writer.deleteImage(id)
                removed += 1
            }
            try writer.flushCounts()
            return removed
        } }
    }
}

/// The row-level work of one write transaction.
package struct BatchWriter {
    let db: Database
    private var modelIDs: [ModelStamp: Int64] = [:]
    private var countDeltas: [Int64: Int] = [:]
    private var postings = PostingChanges()
    private let now = Timestamps.microseconds(Date())
    /// The image upsert, prepared once per batch rather than cached for the connection's life:
    /// statements that bind blobs keep their last arguments, and LeakSanitizer cannot follow the
    /// references Swift's `Data` keeps inside enums, so a blob held by a long-lived index was
    /// reported as leaked (libFuzzer's query target found it).
    private var upsert: Statement?

    init(db: Database) { self.db = db }

    mutating func modelID(_ model: ModelStamp) throws -> Int64 {
        if let id = modelIDs[model] { return id }
        try db.execute(
            sql: "INSERT INTO models(name, version) VALUES (?, ?) ON CONFLICT DO NOTHING",
            arguments: [model.name, model.version])
        let id = try Int64.fetchOne(
            db, sql: "SELECT id FROM models WHERE name = ? AND version = ?",
            arguments: [model.name, model.version])!
        modelIDs[model] = id
        return id
    }

    /// Label ids of the observations at or above the floor; unknown identifiers become labels.
    mutating func labelIDs(
        for observations: [LabelConfidence], taxonomy: inout TaxonomySnapshot, index: SQLiteIndex
    ) throws -> [(labelID: Int64, confidence: Int)] {
        var result: [(Int64, Int)] = []
        var created = false
        for observation in observations {
            let quantized = StorageFormat.quantize(observation.confidence)
            guard quantized >= StorageFormat.floorQuantized else { continue }
            var id = taxonomy.idByIdentifier[observation.identifier]
            if id == nil {
                try db.execute(
                    sql: "INSERT INTO labels(identifier, display_name) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    arguments: [observation.identifier, observation.identifier])
                id = try Int64.fetchOne(
                    db, sql: "SELECT id FROM labels WHERE identifier = ?", arguments: [observation.identifier])
                try db.execute(
                    sql: """
                        INSERT INTO label_text(rowid, identifier, display_name, synonyms)
                        SELECT id, identifier, display_name, synonyms FROM labels WHERE id = ?
                        """,
                    arguments: [id])
                created = true
            }
            result.append((id!, quantized))
        }
        if created {
            try TaxonomySnapshot.bumpGeneration(db)
            taxonomy = try index.taxonomy(db)
        }
        return result
    }

    /// Own confidences (the highest given each label) and subtree confidences (`best`: each label
    /// raises itself and every ancestor) of an image's stored labels.
    package static func rollUp(
        _ labelIDs: [(labelID: Int64, confidence: Int)], taxonomy: TaxonomySnapshot
    ) -> (confidence: [Int64: Int], best: [Int64: Int]) {
        var confidence: [Int64: Int] = [:]
        var best: [Int64: Int] = [:]
        for (labelID, value) in labelIDs {
            confidence[labelID] = max(confidence[labelID] ?? 0, value)
            for ancestor in taxonomy.ancestorsOrSelf[labelID] ?? [labelID] {
                best[ancestor] = max(best[ancestor] ?? 0, value)
            }
        }
        return (confidence, best)
    }

    @discardableResult
    mutating func store(
        _ result: ImageClassification, labelIDs: [(labelID: Int64, confidence: Int)],
        featurePrint: Data?, taxonomy: TaxonomySnapshot
    ) throws -> Int64 {
        let (confidence, best) = Self.rollUp(labelIDs, taxonomy: taxonomy)
        let imageID = try upsertImage(
            path: result.path, size: result.size, mtime: result.modificationTime,
            hash: result.contentHash, width: result.width, height: result.height,
            modelID: try modelID(result.model), errorStage: nil, errorReason: nil,
            topConfidence: best.values.max(), featurePrint: featurePrint,
            dominantColors: IndexedColor.encode(result.dominantColors))
        try replaceObservations(imageID, confidence: confidence, best: best)
        try storeFaces(imageID, result.faces, thorough: result.facesThorough)
        try storeMetadata(imageID, result.metadata)
        return imageID
    }

    /// Replaces the observations, postings and packed labels of an image (not its row).
    mutating func replaceObservations(_ imageID: Int64, confidence: [Int64: Int], best: [Int64: Int]) throws {
        try deleteObservations(imageID)
        let insert = try db.cachedStatement(
            sql: "INSERT INTO observations(label_id, image_id, best, confidence) VALUES (?, ?, ?, ?)")
        let entries = best.sorted { $0.key < $1.key }
        for (labelID, value) in entries {
            try insert.execute(arguments: [labelID, imageID, value, confidence[labelID]])
            countDeltas[labelID, default: 0] += 1
            postings.add(label: labelID, image: imageID, best: value)
        }
        try db.execute(
            sql: "INSERT INTO image_labels(image_id, packed) VALUES (?, ?)",
            arguments: [imageID, Data(PackedLabels.pack(entries.map { PackedLabels.Entry(labelID: $0.key, best: $0.value, confidence: confidence[$0.key]) }))])
    }

    @discardableResult
    mutating func store(_ failure: ImageFailure) throws -> Int64 {
        let imageID = try upsertImage(
            path: failure.path, size: failure.size, mtime: failure.modificationTime,
            hash: failure.contentHash, width: nil, height: nil, modelID: try modelID(failure.model),
            errorStage: failure.stage, errorReason: failure.reason, topConfidence: nil, featurePrint: nil)
        try deleteObservations(imageID)
        try storeFaces(imageID, nil)
        try storeMetadata(imageID, nil)
        return imageID
    }

    private mutating func upsertImage(
        path: String, size: Int64, mtime: Date, hash: String?, width: Int?, height: Int?,
        modelID: Int64, errorStage: String?, errorReason: String?, topConfidence: Int?,
        featurePrint: Data?, dominantColors: Data? = nil
    ) throws -> Int64 {
        let statement = try upsert ?? db.makeStatement(sql: Schema.imageUpsert(placeholders: Array(repeating: "?", count: 13), returning: "id"))
        upsert = statement
        let arguments: StatementArguments = [
            path, size, Timestamps.microseconds(mtime), hash, width, height, modelID, now,
            errorStage, errorReason, topConfidence, featurePrint, dominantColors,
        ]
        return try Int64.fetchOne(statement, arguments: arguments)!
    }

    /// Deletes an image's observations, found through its packed labels.
    mutating func deleteObservations(_ imageID: Int64) throws {
        guard let packed = try Data.fetchOne(
            db.cachedStatement(sql: "SELECT packed FROM image_labels WHERE image_id = ?"), arguments: [imageID])
        else { return }
        let delete = try db.cachedStatement(sql: "DELETE FROM observations WHERE label_id = ? AND image_id = ?")
        var labelIDs: [Int64] = []
        packed.withUnsafeBytes { bytes in PackedLabels.forEach(bytes) { id, _, _ in labelIDs.append(Int64(id)) } }
        for labelID in labelIDs {
            try delete.execute(arguments: [labelID, imageID])
            countDeltas[labelID, default: 0] -= 1
            postings.remove(label: labelID, image: imageID)
        }
        try db.execute(sql: "DELETE FROM image_labels WHERE image_id = ?", arguments: [imageID])
    }

    mutating func deleteImage(_ imageID: Int64) throws {
        try deleteObservations(imageID)
        try db.execute(sql: "DELETE FROM images WHERE id = ?", arguments: [imageID])
    }

    /// Copies the observations of `sourceID` onto `targetID` (same content, same model).
    mutating func copyObservations(from sourceID: Int64, to targetID: Int64) throws {
        try deleteObservations(targetID)
        try db.execute(sql: "DELETE FROM model_labels WHERE image_id = ?", arguments: [targetID])
        try copyFaces(from: sourceID, to: targetID)
        try copyMetadata(from: sourceID, to: targetID)
        guard let packed = try Data.fetchOne(
            db, sql: "SELECT packed FROM image_labels WHERE image_id = ?", arguments: [sourceID])
        else { return }
        var labels: [(id: Int64, best: Int)] = []
        packed.withUnsafeBytes { bytes in PackedLabels.forEach(bytes) { id, best, _ in labels.append((Int64(id), best)) } }
        let copy = try db.cachedStatement(sql: """
            INSERT INTO observations(label_id, image_id, best, confidence)
            SELECT label_id, ?, best, confidence FROM observations WHERE label_id = ? AND image_id = ?
            """)
        for (labelID, best) in labels {
            try copy.execute(arguments: [targetID, labelID, sourceID])
            countDeltas[labelID, default: 0] += 1
            postings.add(label: labelID, image: targetID, best: best)
        }
        try db.execute(
            sql: "INSERT INTO image_labels(image_id, packed) VALUES (?, ?)", arguments: [targetID, packed])
        // A corrected copy keeps what the model said too, so later corrections start from it.
        try db.execute(
            sql: "INSERT OR REPLACE INTO model_labels(image_id, packed) SELECT ?, packed FROM model_labels WHERE image_id = ?",
            arguments: [targetID, sourceID])
    }

    /// Applies the label counts and postings collected by this transaction.
    func flushCounts() throws {
        try postings.apply(db)
        let update = try db.cachedStatement(sql: "UPDATE labels SET image_count = image_count + ? WHERE id = ?")
        for (labelID, delta) in countDeltas where delta != 0 {
            try update.execute(arguments: [delta, labelID])
        }
    }
}
