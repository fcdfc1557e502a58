import TagIndex
import Foundation
import GRDB
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
/// Usage: `var writer = PostgresBatchWriter(session, taxonomy: snapshot); let rows = try await writer.store(entries); try await writer.flushCounts()`
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

    /// Writes classified and failed files, each replacing what its path held, with one statement
    /// per table for the whole batch; returns, per entry, its image id and whether its path was
    /// new to the index. Paths must be distinct; rows are written in the entries' order (give
    /// them sorted by path, so concurrent writers lock rows in one order and never deadlock).
    mutating func store(_ entries: [IndexEntry]) async throws -> [(id: Int64, inserted: Bool)] {
        guard !entries.isEmpty else { return [] }
        try await shareCorrectionsLock()
        // Columns of the image rows; '' and -1 stand for NULL (arrays of PostgreSQL's wire
        // format carry no NULLs here).
        var paths: [String] = [], sizes: [Int64] = [], times: [Int64] = [], hashes: [String] = []
        var widths: [Int64] = [], heights: [Int64] = [], models: [Int64] = [], stages: [String] = [], reasons: [String] = []
        var tops: [Int64] = [], prints: [ByteBuffer] = [], colors: [ByteBuffer] = []
        // Per entry: the rolled-up labels (nil for a failure), what the model said when a
        // correction changed it, and the faces.
        var labels: [(confidence: [Int64: Int], best: [Int64: Int])?] = []
        var modelLabels: [[(labelID: Int64, confidence: Int)]?] = []
        var faces: [[IndexedFace]?] = []
        var thorough: [Bool] = []
        var metadata: [IndexedMetadata?] = []
        for entry in entries {
            switch entry {
            case .classified(let result):
                let model = try await labelIDs(for: result.observations)
                let kept = try await corrections(model, contentHash: result.contentHash)
                let rolled = BatchWriter.rollUp(kept ?? model, taxonomy: taxonomy)
                paths.append(result.path)
                sizes.append(result.size)
                times.append(Timestamps.microseconds(result.modificationTime))
                hashes.append(result.contentHash)
                widths.append(Int64(result.width))
                heights.append(Int64(result.height))
                models.append(try await modelID(result.model))
                stages.append("")
                reasons.append("")
                tops.append(Int64(rolled.best.values.max() ?? -1))
                prints.append(try result.featurePrint.map { ByteBuffer(bytes: try FeaturePrint.encode($0)) } ?? ByteBuffer())
                colors.append(IndexedColor.encode(result.dominantColors).map { ByteBuffer(bytes: $0) } ?? ByteBuffer())
                labels.append(rolled)
                modelLabels.append(kept == nil ? nil : model)
                faces.append(result.faces)
                thorough.append(result.facesThorough)
                metadata.append(result.metadata)
            case .failed(let failure):
                paths.append(failure.path)
                sizes.append(failure.size)
                times.append(Timestamps.microseconds(failure.modificationTime))
                hashes.append(failure.contentHash ?? "")
                widths.append(-1)
                heights.append(-1)
                models.append(try await modelID(failure.model))
                stages.append(failure.stage)
                reasons.append(failure.reason.isEmpty ? "no reason given" : failure.reason)
                tops.append(-1)
                prints.append(ByteBuffer())
                colors.append(ByteBuffer())
                labels.append(nil)
                modelLabels.append(nil)
                faces.append(nil)
                thorough.append(false)
                metadata.append(nil)
            }
        }
        guard Set(paths).count == paths.count else { throw TagIndexError.invalidInput("a batch holds the same path twice") }

        var binds = PostgresBindings()
        for column in [paths, hashes, stages, reasons] as [[String]] { binds.append(column) }
        for column in [sizes, times, widths, heights, models, tops] as [[Int64]] { binds.append(column) }
        binds.append(prints)
        binds.append(colors)
        binds.append(now)
        let source = """
            unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[], $8::bigint[],
                   $9::bigint[], $10::bigint[], $11::bytea[], $12::bytea[]) WITH ORDINALITY
                AS u(path, hash, stage, reason, size, mtime, width, height, model, top, print, colors, position)
            ORDER BY u.position
            """
        let expressions = [
            "u.path", "u.size", "u.mtime", "NULLIF(u.hash, '')", "NULLIF(u.width, -1)", "NULLIF(u.height, -1)", "u.model", "$13",
            "NULLIF(u.stage, '')", "NULLIF(u.reason, '')", "NULLIF(u.top, -1)", "NULLIF(u.print, ''::bytea)", "NULLIF(u.colors, ''::bytea)",
        ]
        // xmax is 0 on a row this statement inserted, the updating transaction's id otherwise.
        var written: [String: (id: Int64, inserted: Bool)] = [:]
        for (path, id, inserted) in try await session.all(
            Schema.imageUpsert(placeholders: expressions, from: source, returning: "path, id, xmax = 0"), binds,
            { try $0.decode((String, Int64, Bool).self) })
        {
            written[path] = (id, inserted)
        }
        let rows = try paths.map { path in
            guard let row = written[path] else { throw TagIndexError.invalidInput("\(path) could not be stored") }
            return row
        }

        // What paths held before goes: labels, packed labels, faces.
        let replaced = rows.filter { !$0.inserted }.map(\.id)
        try await deleteObservations(replaced)
        if !replaced.isEmpty {
            var ids = PostgresBindings()
            ids.append(replaced)
            try await session.execute("DELETE FROM image_faces WHERE image_id = ANY($1::bigint[])", ids)
            try await session.execute("DELETE FROM image_metadata WHERE image_id = ANY($1::bigint[])", ids)
        }

        // The new labels and packed labels of every classified file.
        var observationImages: [Int64] = [], observationLabels: [Int64] = [], bests: [Int64] = [], confidences: [Int64] = []
        var packedImages: [Int64] = [], packed: [ByteBuffer] = []
        for (row, rolled) in zip(rows, labels) {
            guard let rolled, !rolled.best.isEmpty else { continue }
            let sorted = rolled.best.sorted { $0.key < $1.key }
            for (labelID, best) in sorted {
                observationImages.append(row.id)
                observationLabels.append(labelID)
                bests.append(Int64(best))
                confidences.append(Int64(rolled.confidence[labelID] ?? -1))
                countDeltas[labelID, default: 0] += 1
            }
            packedImages.append(row.id)
            packed.append(ByteBuffer(bytes: PackedLabels.pack(sorted.map { PackedLabels.Entry(labelID: $0.key, best: $0.value, confidence: rolled.confidence[$0.key]) })))
        }
        if !packedImages.isEmpty {
            var insert = PostgresBindings()
            insert.append(observationImages)
            insert.append(observationLabels)
            insert.append(bests)
            insert.append(confidences)
            insert.append(packedImages)
            insert.append(packed)
            try await session.execute("""
                WITH stored AS (
                    INSERT INTO observations(label_id, image_id, best, confidence)
                    SELECT u.label_id, u.image_id, u.best, NULLIF(u.confidence, -1)
                    FROM unnest($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[]) AS u(image_id, label_id, best, confidence))
                INSERT INTO image_labels(image_id, packed) SELECT * FROM unnest($5::bigint[], $6::bytea[])
                """, insert)
        }

        // Faces, where they were looked for.
        let withFaces = zip(zip(rows, faces), thorough).compactMap { pair, thorough in pair.1.map { (pair.0.id, $0, thorough) } }
        if !withFaces.isEmpty {
            var insert = PostgresBindings()
            insert.append(withFaces.map(\.0))
            insert.append(withFaces.map { Int64($0.1.count) })
            insert.append(withFaces.map { ByteBuffer(bytes: IndexedFace.encode($0.1)) })
            // No descriptors (recognition did not run) travel as an empty bytea: arrays of NULLs do not bind.
            insert.append(withFaces.map { IndexedFace.encodeDescriptors($0.1).map { ByteBuffer(bytes: $0) } ?? ByteBuffer() })
            insert.append(withFaces.map { Int32($0.2 ? 1 : 0) })
            try await session.execute("""
                INSERT INTO image_faces(image_id, face_count, faces, descriptors, thorough)
                SELECT u.image_id, u.face_count, u.faces, NULLIF(u.descriptors, ''::bytea), u.thorough
                FROM unnest($1::bigint[], $2::bigint[], $3::bytea[], $4::bytea[], $5::integer[]) AS u(image_id, face_count, faces, descriptors, thorough)
                """, insert)
        }
        // Metadata, where it was read.
        try await Self.insertMetadata(zip(rows, metadata).compactMap { row, read in read.map { (row.id, $0) } }, session)
        for (row, model) in zip(rows, modelLabels) {
            try await keepModelLabels(model, imageID: row.id)
        }
        return rows
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
        try await deleteObservations([imageID])
    }

    /// Deletes the observations (found through their packed labels) and packed labels of images.
    mutating func deleteObservations(_ imageIDs: [Int64]) async throws {
        guard !imageIDs.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(imageIDs)
        let removed = try await session.all(
            "DELETE FROM image_labels WHERE image_id = ANY($1::bigint[]) RETURNING image_id, packed", binds
        ) { try $0.decode((Int64, ByteBuffer).self) }
        var images: [Int64] = [], labels: [Int64] = []
        for (imageID, packed) in removed {
            packed.readableBytesView.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { id, _, _ in
                    images.append(imageID)
                    labels.append(Int64(id))
                }
            }
        }
        guard !images.isEmpty else { return }
        var pairs = PostgresBindings()
        pairs.append(images)
        pairs.append(labels)
        let deleted = try await session.all("""
            DELETE FROM observations AS o USING unnest($1::bigint[], $2::bigint[]) AS d(image_id, label_id)
            WHERE o.label_id = d.label_id AND o.image_id = d.image_id RETURNING o.label_id
            """, pairs) { try $0.decode(Int64.self) }
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

    /// Copies the labels, packed labels, model labels and faces of `sourceID` onto `targetID`
    /// (same content, same model).
    mutating func copyObservations(from sourceID: Int64, to targetID: Int64) async throws {
        try await shareCorrectionsLock()
        try await deleteObservations(targetID)
        var target = PostgresBindings()
        target.append(targetID)
        try await session.execute("DELETE FROM model_labels WHERE image_id = $1", target)
        try await session.execute("DELETE FROM image_faces WHERE image_id = $1", target)
        try await session.execute("DELETE FROM image_metadata WHERE image_id = $1", target)
        var binds = PostgresBindings()
        binds.append(sourceID)
        binds.append(targetID)
        try await session.execute(
            "INSERT INTO image_faces(image_id, face_count, faces, descriptors, thorough) SELECT $2, face_count, faces, descriptors, thorough FROM image_faces WHERE image_id = $1",
            binds)
        let rest = MetadataStorage.columns.dropFirst().joined(separator: ", ")
        try await session.execute("INSERT INTO image_metadata(image_id, \(rest)) SELECT $2, \(rest) FROM image_metadata WHERE image_id = $1", binds)
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
    mutating func shareCorrectionsLock() async throws {
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

extension PostgresBatchWriter {
    /// Inserts metadata rows in one statement; an image that has a row keeps it (another indexer
    /// filling the same image at once wrote the same).
    static func insertMetadata(_ rows: [(imageID: Int64, metadata: IndexedMetadata)], _ session: PostgresSession) async throws {
        guard !rows.isEmpty else { return }
        var binds = PostgresBindings()
        var tuples: [String] = []
        var parameter = 0
        for (imageID, metadata) in rows {
            var placeholders: [String] = []
            for value in [imageID.databaseValue] + MetadataStorage.values(of: metadata) {
                parameter += 1
                placeholders.append("$\(parameter)")
                PostgresCopyTarget.bind(value, boolean: false, into: &binds)
            }
            tuples.append("(" + placeholders.joined(separator: ", ") + ")")
        }
        try await session.execute(
            "INSERT INTO image_metadata(\(MetadataStorage.columns.joined(separator: ", "))) VALUES " + tuples.joined(separator: ", ")
                + " ON CONFLICT(image_id) DO NOTHING", binds)
    }
}
