import TagIndex
import Foundation
import PostgresNIO

/// Installs a taxonomy in a PostgreSQL index as ``SQLiteIndex/replaceTaxonomy(_:model:vocabulary:)``
/// does in SQLite: labels, names, synonyms, parents, curves, the search vocabulary and the model
/// stamp, skipped whole when the stored fingerprint says nothing changed.
///
/// Many index runs start at once on a shared index: the install runs in one transaction under an
/// advisory lock, and the fingerprint is read again under it, so one run writes and the others
/// find it done. When the parents changed, every image's subtree confidences (`best`) are rolled
/// up again from the stored confidences (see ``recomputeSubtreeConfidences(_:)``) and the
/// corrections applied again (``reapplyAllCorrections(_:)``).
///
/// Usage: `try await PostgresTaxonomyWriter.install(labels, model: stamp, vocabulary: words, session)`
enum PostgresTaxonomyWriter {
    /// `pg_advisory_xact_lock` key of taxonomy installs (the migration lock's plus one).
    static let lock: Int64 = PostgresSchema.migrationLock + 1

    static func install(_ labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], _ session: PostgresSession) async throws {
        let words = try SQLiteIndex.checkedVocabularyJSON(labels, vocabulary: vocabulary)
        let fingerprint = SQLiteIndex.fingerprint(labels, model: model, vocabulary: words)
        if try await storedFingerprint(session) == fingerprint { return }
        try await session.transaction { session in
            var key = PostgresBindings()
            key.append(lock)
            try await session.execute("SELECT pg_advisory_xact_lock($1)", key)
            if try await storedFingerprint(session) == fingerprint { return }
            try await write(labels, model: model, words: words, fingerprint: fingerprint, session)
        }
    }

    static func storedFingerprint(_ session: PostgresSession) async throws -> String? {
        try await session.all("SELECT value FROM meta WHERE key = 'taxonomy_fingerprint'") { try $0.decode(String?.self) }.first ?? nil
    }

    private static func write(_ labels: [LabelDefinition], model: ModelStamp, words: String, fingerprint: String, _ session: PostgresSession) async throws {
        let encoder = JSONEncoder()
        var binds = PostgresBindings()
        binds.append(labels.map(\.identifier))
        binds.append(labels.map(\.displayName))
        binds.append(try labels.map { String(decoding: try encoder.encode($0.synonyms), as: UTF8.self) })
        try await session.execute("""
            INSERT INTO labels(identifier, display_name, synonyms)
            SELECT * FROM unnest($1::text[], $2::text[], $3::text[]) ORDER BY 1
            ON CONFLICT(identifier) DO UPDATE SET display_name = excluded.display_name, synonyms = excluded.synonyms
            """, binds)
        var ids: [String: Int64] = [:]
        for (identifier, id) in try await session.all("SELECT identifier, id FROM labels", PostgresBindings(), { try $0.decode((String, Int64).self) }) {
            ids[identifier] = id
        }

        var newEdges: Set<[Int64]> = []
        for label in labels {
            for parent in label.parents { newEdges.insert([ids[label.identifier]!, ids[parent]!]) }
        }
        let oldEdges = Set(try await session.all("SELECT label_id, parent_id FROM label_parents") { row in
            let (label, parent) = try row.decode((Int64, Int64).self)
            return [label, parent]
        })
        if oldEdges != newEdges {
            try await session.execute("DELETE FROM label_parents")
            var edges = PostgresBindings()
            edges.append(newEdges.map { $0[0] })
            edges.append(newEdges.map { $0[1] })
            try await session.execute("INSERT INTO label_parents(label_id, parent_id) SELECT * FROM unnest($1::bigint[], $2::bigint[])", edges)
        }

        try await session.execute("UPDATE labels SET curve_id = NULL")
        try await session.execute("DELETE FROM curves")
        let curved = labels.compactMap { label in label.curve.map { (label.identifier, ByteBuffer(bytes: PackedCurve.pack($0))) } }
        if !curved.isEmpty {
            var distinct: [ByteBuffer] = []
            var seen = Set<ByteBuffer>()
            for (_, points) in curved where seen.insert(points).inserted { distinct.append(points) }
            var curves = PostgresBindings()
            curves.append(distinct)
            try await session.execute("INSERT INTO curves(points) SELECT * FROM unnest($1::bytea[])", curves)
            var assign = PostgresBindings()
            assign.append(curved.map(\.0))
            assign.append(curved.map(\.1))
            try await session.execute("""
                UPDATE labels SET curve_id = c.id FROM unnest($1::text[], $2::bytea[]) AS u(identifier, points)
                JOIN curves AS c ON c.points = u.points WHERE labels.identifier = u.identifier
                """, assign)
        }

        var listed = PostgresBindings()
        listed.append(labels.map(\.identifier))
        try await session.execute("""
            DELETE FROM labels WHERE NOT (identifier = ANY($1::text[]))
              AND NOT EXISTS (SELECT 1 FROM observations WHERE label_id = labels.id)
            """, listed)
        if oldEdges != newEdges {
            try await recomputeSubtreeConfidences(session)
            // A removal covers the labels below it as the taxonomy has them now.
            try await reapplyAllCorrections(session)
        }

        var stamp = PostgresBindings()
        stamp.append(model.name)
        stamp.append(model.version)
        try await session.execute("INSERT INTO models(name, version) VALUES ($1, $2) ON CONFLICT DO NOTHING", stamp)
        for (key, value) in [("taxonomy_model", model.description), ("vocabulary", words), ("taxonomy_fingerprint", fingerprint)] {
            var pair = PostgresBindings()
            pair.append(key)
            pair.append(value)
            try await session.execute("INSERT INTO meta(key, value) VALUES ($1, $2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", pair)
        }
        try await bumpGeneration(session)
    }

    /// Tells every reader that labels changed (``TaxonomySnapshot`` caches by generation).
    static func bumpGeneration(_ session: PostgresSession) async throws {
        try await session.execute("""
            INSERT INTO meta(key, value) VALUES ('taxonomy_generation', '1')
            ON CONFLICT(key) DO UPDATE SET value = (COALESCE(meta.value, '0')::bigint + 1)::text
            """)
    }

    /// Recomputes every corrected image from what the model gave it and its corrections, as the
    /// taxonomy is now (as SQLite's install does), under the corrections lock: index runs apply
    /// no correction meanwhile.
    static func reapplyAllCorrections(_ session: PostgresSession) async throws {
        let hashes = try await session.all("""
            SELECT DISTINCT content_hash FROM corrections
            UNION SELECT i.content_hash FROM model_labels AS ml JOIN images AS i ON i.id = ml.image_id
            WHERE i.content_hash IS NOT NULL
            ORDER BY 1
            """) { try $0.decode(String.self) }
        guard !hashes.isEmpty else { return }
        var key = PostgresBindings()
        key.append(PostgresBatchWriter.correctionsLock)
        try await session.execute("SELECT pg_advisory_xact_lock($1)", key)
        var writer = PostgresBatchWriter(session, taxonomy: try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session)))
        for hash in hashes { try await writer.reapplyCorrections(contentHash: hash) }
        try await writer.flushCounts()
    }

    /// Rebuilds every `best` from the stored confidences and the parent edges as they are now,
    /// then the label counts and each image's packed labels (a page of images at a time).
    /// ``reapplyAllCorrections(_:)`` then recomputes the corrected images.
    static func recomputeSubtreeConfidences(_ session: PostgresSession) async throws {
        guard try await session.all("SELECT EXISTS (SELECT 1 FROM observations)", PostgresBindings(), { try $0.decode(Bool.self) }).first == true else { return }
        try await session.execute("""
            CREATE TEMP TABLE rolled ON COMMIT DROP AS
            WITH RECURSIVE up(descendant, ancestor) AS (
                SELECT id, id FROM labels
                UNION
                SELECT up.descendant, p.parent_id FROM up JOIN label_parents AS p ON p.label_id = up.ancestor)
            SELECT up.ancestor AS label_id, o.image_id, MAX(o.confidence) AS best, MAX(own.confidence) AS confidence
            FROM observations AS o JOIN up ON up.descendant = o.label_id
            LEFT JOIN observations AS own ON own.label_id = up.ancestor AND own.image_id = o.image_id AND own.confidence IS NOT NULL
            WHERE o.confidence IS NOT NULL
            GROUP BY up.ancestor, o.image_id
            """)
        try await session.execute("DELETE FROM observations")
        try await session.execute("INSERT INTO observations(label_id, image_id, best, confidence) SELECT label_id, image_id, best, confidence FROM rolled")
        try await session.execute("UPDATE labels SET image_count = (SELECT COUNT(*) FROM observations WHERE label_id = labels.id)")
        var after: Int64 = 0
        while true {
            var page = PostgresBindings()
            page.append(after)
            let images = try await session.all("""
                SELECT image_id, array_agg(label_id ORDER BY label_id), array_agg(best ORDER BY label_id), array_agg(COALESCE(confidence, 0) ORDER BY label_id)
                FROM observations WHERE image_id > $1 GROUP BY image_id ORDER BY image_id LIMIT 2000
                """, page) { try $0.decode((Int64, [Int64], [Int64], [Int64]).self) }
            guard let last = images.last else { break }
            var update = PostgresBindings()
            update.append(images.map(\.0))
            update.append(images.map { image in
                ByteBuffer(bytes: PackedLabels.pack(zip(image.1, zip(image.2, image.3)).map { label, values in
                    PackedLabels.Entry(labelID: label, best: Int(values.0), confidence: values.1 == 0 ? nil : Int(values.1))
                }))
            })
            try await session.execute(
                "UPDATE image_labels SET packed = u.packed FROM unnest($1::bigint[], $2::bytea[]) AS u(image_id, packed) WHERE image_labels.image_id = u.image_id",
                update)
            after = last.0
        }
    }
}
