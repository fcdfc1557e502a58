import Foundation
import PostgresNIO

/// The row-level work of one write transaction on PostgreSQL: what ``BatchWriter`` does in
/// SQLite (images, observations with their subtree confidences, packed labels, faces, label
/// counts, corrections applied to what the model said), for index runs with many writers.
///
/// Every write replaces what its rows held before, so running a transaction again (after a
/// lost connection or deadlock) leaves the same state, and a file written by two workers ends
/// as one row. Label counts are changed once per transaction, the rows locked in id order, so
/// concurrent writers never deadlock on them.
///
/// Usage: `var writer = PostgresBatchWriter(session, taxonomy: snapshot); let id = try await writer.store(result); try await writer.flushCounts()`
struct PostgresBatchWriter {
    let session: PostgresSession
    private(set) var taxonomy: TaxonomySnapshot
    private var modelIDs: [ModelStamp: Int64] = [:]
    private var countDeltas: [Int64: Int] = [:]
    private let now = Timestamps.microseconds(Date())
    /// Whether corrections exist (read once per transaction: without them a write costs nothing more).
    private var corrected: Bool?
    /// Set once this transaction holds the corrections lock in shared mode (see ``correctionsLock``).
    private var sharesCorrectionsLock = false
    /// Set when this transaction created labels (the caller's snapshot is stale after it commits).
    private(set) var createdLabels = false

    init(_ session: PostgresSession, taxonomy: TaxonomySnapshot) {
        self.session = session
        self.taxonomy = taxonomy
    }

    mutating func modelID(_ model: ModelStamp) async throws -> Int64 {
        if let id = modelIDs[model] { return id }
        var binds = PostgresBindings()
        binds.append(model.name)
        binds.append(model.version)
        try await session.execute("INSERT INTO models(name, version) VALUES ($1, $2) ON CONFLICT DO NOTHING", binds)
        let id = try await session.all("SELECT id FROM models WHERE name = $1 AND version = $2", binds) { try $0.decode(Int64.self) }
        guard let found = id.first else { throw TagIndexError.invalidInput("the model \(model) could not be stored") }
        modelIDs[model] = found
        return found
    }

    /// Label ids of the observations at or above the storage floor; unknown identifiers become labels.
    mutating func labelIDs(for observations: [LabelConfidence]) async throws -> [(labelID: Int64, confidence: Int)] {
        var result: [(Int64, Int)] = []
        for observation in observations {
            let quantized = StorageFormat.quantize(observation.confidence)
            guard quantized >= StorageFormat.floorQuantized else { continue }
            if let id = taxonomy.idByIdentifier[observation.identifier] {
                result.append((id, quantized))
                continue
            }
            var binds = PostgresBindings()
            binds.append(observation.identifier)
            try await session.execute(
                "INSERT INTO labels(identifier, display_name) VALUES ($1, $1) ON CONFLICT DO NOTHING", binds)
            try await PostgresTaxonomyWriter.bumpGeneration(session)
            taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
            createdLabels = true
            guard let id = taxonomy.idByIdentifier[observation.identifier] else {
                throw TagIndexError.invalidInput("the label '\(observation.identifier)' could not be stored")
            }
            result.append((id, quantized))
        }
        return result
    }

    /// Writes a classified image (replacing what its path held); returns its id and whether the
    /// path was new to the index.
    @discardableResult
    mutating func store(_ result: ImageClassification) async throws -> (id: Int64, inserted: Bool) {
        try await shareCorrectionsLock()
        let model = try await labelIDs(for: result.observations)
        let kept = try await corrections(model, contentHash: result.contentHash)
        let (confidence, best) = BatchWriter.rollUp(kept ?? model, taxonomy: taxonomy)
        let featurePrint = try result.featurePrint.map { ByteBuffer(bytes: try FeaturePrint.encode($0)) }
        let image = try await upsertImage(
            path: result.path, size: result.size, mtime: result.modificationTime, hash: result.contentHash,
            width: result.width, height: result.height, modelID: try await modelID(result.model), errorStage: nil, errorReason: nil,
            topConfidence: best.values.max(), featurePrint: featurePrint,
            dominantColors: IndexedColor.encode(result.dominantColors).map { ByteBuffer(bytes: $0) })
        try await replaceObservations(image.id, confidence: confidence, best: best)
        try await storeFaces(image.id, result.faces)
        try await keepModelLabels(kept == nil ? nil : model, imageID: image.id)
        return image
    }

    /// Writes a failed file (replacing what its path held).
    @discardableResult
    mutating func store(_ failure: ImageFailure) async throws -> (id: Int64, inserted: Bool) {
        try await shareCorrectionsLock()
        let image = try await upsertImage(
            path: failure.path, size: failure.size, mtime: failure.modificationTime, hash: failure.contentHash,
            width: nil, height: nil, modelID: try await modelID(failure.model), errorStage: failure.stage, errorReason: failure.reason,
            topConfidence: nil, featurePrint: nil, dominantColors: nil)
        try await deleteObservations(image.id)
        try await storeFaces(image.id, nil)
        try await keepModelLabels(nil, imageID: image.id)
        return image
    }

    private func upsertImage(
        path: String, size: Int64, mtime: Date, hash: String?, width: Int?, height: Int?, modelID: Int64,
        errorStage: String?, errorReason: String?, topConfidence: Int?, featurePrint: ByteBuffer?, dominantColors: ByteBuffer?
    ) async throws -> (id: Int64, inserted: Bool) {
        var binds = PostgresBindings()
        binds.append(path)
        binds.append(size)
        binds.append(Timestamps.microseconds(mtime))
        binds.append(hash)
        binds.append(width.map(Int64.init))
        binds.append(height.map(Int64.init))
        binds.append(modelID)
        binds.append(now)
        binds.append(errorStage)
        binds.append(errorReason)
        binds.append(topConfidence.map(Int64.init))
        binds.append(featurePrint)
        binds.append(dominantColors)
        // xmax is 0 on a row this statement inserted, the updating transaction's id otherwise.
        let rows = try await session.all(
            Schema.imageUpsert(placeholders: (1...13).map { "$\($0)" }, returning: "id, xmax = 0"), binds
        ) { try $0.decode((Int64, Bool).self) }
        guard let row = rows.first else { throw TagIndexError.invalidInput("\(path) could not be stored") }
        return (row.0, row.1)
    }

    /// Replaces the observations and packed labels of an image (not its row).
    mutating func replaceObservations(_ imageID: Int64, confidence: [Int64: Int], best: [Int64: Int]) async throws {
        try await deleteObservations(imageID)
        let entries = best.sorted { $0.key < $1.key }
        guard !entries.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(imageID)
        binds.append(entries.map(\.key))
        binds.append(entries.map { Int64($0.value) })
        binds.append(entries.map { Int64(confidence[$0.key] ?? -1) })
        binds.append(ByteBuffer(bytes: PackedLabels.pack(entries.map { PackedLabels.Entry(labelID: $0.key, best: $0.value, confidence: confidence[$0.key]) })))
        try await session.execute("""
            WITH stored AS (
                INSERT INTO observations(label_id, image_id, best, confidence)
                SELECT u.label_id, $1, u.best, NULLIF(u.confidence, -1)
                FROM unnest($2::bigint[], $3::bigint[], $4::bigint[]) AS u(label_id, best, confidence))
            INSERT INTO image_labels(image_id, packed) VALUES ($1, $5)
            """, binds)
        for (labelID, _) in entries { countDeltas[labelID, default: 0] += 1 }
    }

    /// Deletes an image's observations (found through its packed labels) and packed labels.
    mutating func deleteObservations(_ imageID: Int64) async throws {
        var binds = PostgresBindings()
        binds.append(imageID)
        let removed = try await session.all("""
            WITH packed AS (DELETE FROM image_labels WHERE image_id = $1 RETURNING packed)
            SELECT packed FROM packed
            """, binds) { try $0.decode(ByteBuffer.self) }
        guard let packed = removed.first else { return }
        var labelIDs: [Int64] = []
        packed.readableBytesView.withUnsafeBytes { bytes in PackedLabels.forEach(bytes) { id, _, _ in labelIDs.append(Int64(id)) } }
        guard !labelIDs.isEmpty else { return }
        binds.append(labelIDs)
        let deleted = try await session.all(
            "DELETE FROM observations WHERE image_id = $1 AND label_id = ANY($2::bigint[]) RETURNING label_id", binds
        ) { try $0.decode(Int64.self) }
        for labelID in deleted { countDeltas[labelID, default: 0] -= 1 }
    }

    /// Deletes images with everything that hangs on them.
    mutating func deleteImages(_ imageIDs: [Int64]) async throws {
        try await shareCorrectionsLock()
        for id in imageIDs { try await deleteObservations(id) }
        var binds = PostgresBindings()
        binds.append(imageIDs)
        try await session.execute("DELETE FROM images WHERE id = ANY($1::bigint[])", binds)
    }

    /// Replaces the faces of an image; nil removes them (not looked for).
    func storeFaces(_ imageID: Int64, _ faces: [IndexedFace]?) async throws {
        var binds = PostgresBindings()
        binds.append(imageID)
        try await session.execute("DELETE FROM image_faces WHERE image_id = $1", binds)
        guard let faces else { return }
        binds.append(Int64(faces.count))
        binds.append(ByteBuffer(bytes: IndexedFace.encode(faces)))
        try await session.execute("INSERT INTO image_faces(image_id, face_count, faces) VALUES ($1, $2, $3)", binds)
    }

    /// Copies the labels, packed labels, model labels and faces of `sourceID` onto `targetID`
    /// (same content, same model).
    mutating func copyObservations(from sourceID: Int64, to targetID: Int64) async throws {
        try await shareCorrectionsLock()
        try await deleteObservations(targetID)
        var target = PostgresBindings()
        target.append(targetID)
        try await session.execute("DELETE FROM model_labels WHERE image_id = $1", target)
        try await session.execute("DELETE FROM image_faces WHERE image_id = $1", target)
        var binds = PostgresBindings()
        binds.append(sourceID)
        binds.append(targetID)
        try await session.execute("INSERT INTO image_faces(image_id, face_count, faces) SELECT $2, face_count, faces FROM image_faces WHERE image_id = $1", binds)
        try await session.execute("INSERT INTO model_labels(image_id, packed) SELECT $2, packed FROM model_labels WHERE image_id = $1", binds)
        try await session.execute("INSERT INTO image_labels(image_id, packed) SELECT $2, packed FROM image_labels WHERE image_id = $1", binds)
        let copied = try await session.all("""
            INSERT INTO observations(label_id, image_id, best, confidence)
            SELECT label_id, $2, best, confidence FROM observations
            WHERE image_id = $1 AND label_id = ANY(SELECT id FROM labels) RETURNING label_id
            """, binds) { try $0.decode(Int64.self) }
        for labelID in copied { countDeltas[labelID, default: 0] += 1 }
    }

    /// The corrected labels of content `contentHash` given what the model said of it, or nil when
    /// it has no correction (as `Corrections.correct` in SQLite).
    mutating func corrections(_ model: [(labelID: Int64, confidence: Int)], contentHash: String) async throws -> [(labelID: Int64, confidence: Int)]? {
        if corrected == nil {
            corrected = try await session.all(
                "SELECT EXISTS (SELECT 1 FROM corrections) OR EXISTS (SELECT 1 FROM model_labels)"
            ) { try $0.decode(Bool.self) }.first ?? false
        }
        guard corrected == true else { return nil }
        var binds = PostgresBindings()
        binds.append(contentHash)
        let stored = try await session.all("SELECT label, added FROM corrections WHERE content_hash = $1", binds) {
            try $0.decode((String, Bool).self)
        }
        guard !stored.isEmpty else { return nil }
        let removed = stored.filter { !$0.1 }.compactMap { taxonomy.idByIdentifier[$0.0] }
        let added = try await labelIDs(for: stored.filter(\.1).map { LabelConfidence(identifier: $0.0, confidence: 1) }).map(\.labelID)
        var confidences: [Int64: Int] = [:]
        for (labelID, value) in model { confidences[labelID] = max(confidences[labelID] ?? 0, value) }
        let result = CorrectionRules.apply(model: confidences, removed: removed, added: added, taxonomy: taxonomy)
        return result.sorted { $0.key < $1.key }.map { (labelID: $0.key, confidence: $0.value) }
    }

    /// Keeps what the model gave a corrected image (`model` non-nil) or forgets it (nil).
    mutating func keepModelLabels(_ model: [(labelID: Int64, confidence: Int)]?, imageID: Int64) async throws {
        guard corrected == true else { return }
        var binds = PostgresBindings()
        binds.append(imageID)
        guard let model else {
            try await session.execute("DELETE FROM model_labels WHERE image_id = $1", binds)
            return
        }
        binds.append(ByteBuffer(bytes: PackedLabels.pack(model.map { PackedLabels.Entry(labelID: $0.labelID, best: $0.confidence, confidence: $0.confidence) })))
        try await session.execute("""
            INSERT INTO model_labels(image_id, packed) VALUES ($1, $2) ON CONFLICT(image_id) DO UPDATE SET packed = excluded.packed
            """, binds)
    }

    /// `pg_advisory_xact_lock` key of corrections (the migration lock's plus two): a correction
    /// (`PostgresIndex.addLabel` and the others) holds it alone while it records and applies
    /// itself; writers hold it shared from their first write to their commit. So a writer never
    /// reads the corrections before a correction commits and writes its rows after (the
    /// correction would be lost on them until the next run), and a correction sees every row a
    /// writer committed.
    static let correctionsLock: Int64 = PostgresSchema.migrationLock + 2

    /// Takes the corrections lock in shared mode, once per transaction.
    private mutating func shareCorrectionsLock() async throws {
        guard !sharesCorrectionsLock else { return }
        var key = PostgresBindings()
        key.append(Self.correctionsLock)
        try await session.execute("SELECT pg_advisory_xact_lock_shared($1)", key)
        sharesCorrectionsLock = true
    }

    /// Applies the label counts collected by this transaction, locking the rows in id order.
    mutating func flushCounts() async throws {
        let changed = countDeltas.filter { $0.value != 0 }.sorted { $0.key < $1.key }
        countDeltas.removeAll()
        guard !changed.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(changed.map(\.key))
        binds.append(changed.map { Int64($0.value) })
        var ids = PostgresBindings()
        ids.append(changed.map(\.key))
        try await session.execute("SELECT id FROM labels WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE", ids)
        try await session.execute(
            "UPDATE labels SET image_count = labels.image_count + u.delta FROM unnest($1::bigint[], $2::bigint[]) AS u(id, delta) WHERE labels.id = u.id",
            binds)
    }
}
