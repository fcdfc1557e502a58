import ClassifySupport
import Foundation
import GRDB

extension SQLiteIndex {
    /// Installs the taxonomy of `model`: labels, names, parents and curves, and the search
    /// vocabulary on top of it (everyday words mapped to labels, or marked as unseeable).
    ///
    /// Idempotent. Labels missing from `labels` are deleted unless images still
    /// reference them. When the parent structure changes, each image's subtree
    /// confidences (`best`) are recomputed so terms keep matching their subtrees.
    /// The vocabulary replaces the previous one whole; it is checked first (see
    /// ``VocabularyWord``): every label it names must be in `labels`.
    ///
    /// ```swift
    /// try index.replaceTaxonomy([
    ///     LabelDefinition(identifier: "dog", displayName: "Dog"),
    ///     LabelDefinition(identifier: "golden_retriever", displayName: "Golden Retriever", parents: ["dog"]),
    /// ], model: ModelStamp(name: "lite0", version: "1"),
    ///    vocabulary: [VocabularyWord(word: "puppy", labels: ["dog"], reason: "young dogs")])
    /// ```
    public func replaceTaxonomy(_ labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord] = []) throws {
        try guardingStorage { try installTaxonomy(labels, model: model, vocabulary: vocabulary) }
    }

    private func installTaxonomy(_ labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord]) throws {
        let words = try Self.checkedVocabularyJSON(labels, vocabulary: vocabulary)
        // Every index run starts by replacing the taxonomy; when nothing changed (the usual case)
        // a fingerprint of the definitions lets it skip rewriting thousands of curve rows.
        let fingerprint = Self.fingerprint(labels, model: model, vocabulary: words)
        let stored = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'taxonomy_fingerprint'")
        }
        if stored == fingerprint { return }
        try database.write { db in
            let encoder = JSONEncoder()
            for (position, label) in labels.enumerated() {
                if position > 0 && position % 100 == 0 { CrashPoints.reach(.taxonomy) }
                let synonyms = String(decoding: try encoder.encode(label.synonyms), as: UTF8.self)
                try db.cachedStatement(
                    sql: """
                        INSERT INTO labels(identifier, display_name, synonyms) VALUES (?, ?, ?)
                        ON CONFLICT(identifier) DO UPDATE
                        SET display_name = excluded.display_name, synonyms = excluded.synonyms
                        """
                ).execute(arguments: [label.identifier, label.displayName, synonyms])
            }
            var ids: [String: Int64] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT identifier, id FROM labels") { ids[row[0]] = row[1] }

            var newEdges: Set<[Int64]> = []
            for label in labels {
                for parent in label.parents { newEdges.insert([ids[label.identifier]!, ids[parent]!]) }
            }
            let oldEdges = Set(
                try Row.fetchAll(db, sql: "SELECT label_id, parent_id FROM label_parents").map {
                    [$0[0] as Int64, $0[1] as Int64]
                })
            if oldEdges != newEdges {
                try db.execute(sql: "DELETE FROM label_parents")
                for edge in newEdges {
                    try db.cachedStatement(sql: "INSERT INTO label_parents(label_id, parent_id) VALUES (?, ?)")
                        .execute(arguments: [edge[0], edge[1]])
                }
            }

            try db.execute(sql: "UPDATE labels SET curve_id = NULL; DELETE FROM curves")
            var curveIDs: [Data: Int64] = [:]
            for label in labels {
                if let curve = label.curve { try Schema.storeCurve(curve, forLabel: ids[label.identifier]!, curveIDs: &curveIDs, db) }
            }

            let listed = String(decoding: try encoder.encode(labels.map(\.identifier)), as: UTF8.self)
            try db.execute(
                sql: """
                    DELETE FROM labels
                    WHERE identifier NOT IN (SELECT value FROM json_each(?))
                      AND NOT EXISTS (SELECT 1 FROM observations WHERE label_id = labels.id)
                    """,
                arguments: [listed])
            try db.execute(sql: """
                DELETE FROM label_text;
                INSERT INTO label_text(rowid, identifier, display_name, synonyms)
                    SELECT id, identifier, display_name, synonyms FROM labels;
                """)
            if oldEdges != newEdges {
                try Self.recomputeSubtreeConfidences(db)
                // A removal covers the labels below it as the taxonomy has them now.
                try Corrections.reapplyAll(db, index: self)
            }
            try db.execute(
                sql: "INSERT INTO models(name, version) VALUES (?, ?) ON CONFLICT DO NOTHING",
                arguments: [model.name, model.version])
            try db.execute(
                sql: """
                    INSERT INTO meta(key, value) VALUES ('taxonomy_model', ?)
                    ON CONFLICT(key) DO UPDATE SET value = excluded.value
                    """,
                arguments: [model.description])
            // The vocabulary is one small document read whole with the taxonomy, so it lives in meta
            // (JSON, sorted by word) rather than in tables of its own.
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES ('vocabulary', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [words])
            try db.execute(
                sql: "INSERT INTO meta(key, value) VALUES ('taxonomy_fingerprint', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                arguments: [fingerprint])
            try TaxonomySnapshot.bumpGeneration(db)
            CrashPoints.reach(.taxonomy)
        }
    }

    /// Checks a taxonomy and its vocabulary (unique identifiers, known parents, no cycle, words
    /// naming known labels) and returns the vocabulary as stored: JSON, sorted by word.
    package static func checkedVocabularyJSON(_ labels: [LabelDefinition], vocabulary: [VocabularyWord]) throws -> String {
        let identifiers = Set(labels.map(\.identifier))
        guard identifiers.count == labels.count else {
            throw TagIndexError.invalidInput("the taxonomy lists a label identifier twice")
        }
        for label in labels {
            for parent in label.parents where !identifiers.contains(parent) {
                throw TagIndexError.invalidInput(
                    "label '\(label.identifier)' names an unknown parent '\(parent)'")
            }
        }
        try Self.checkAcyclic(labels)
        try VocabularyRules.check(vocabulary, against: labels)
        // Sorted words and keys: the same vocabulary must give the same bytes (and fingerprint) in
        // every process, or every index run would rewrite the taxonomy.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let words = String(decoding: try encoder.encode(vocabulary.sorted { $0.word < $1.word }), as: UTF8.self)
        return words
    }

    /// A hash of everything `replaceTaxonomy` stores; fields are separated by bytes that cannot
    /// occur in them (0x1F, 0x1E) so different taxonomies cannot hash the same by concatenation.
    package static func fingerprint(_ labels: [LabelDefinition], model: ModelStamp, vocabulary: String) -> String {
        var hasher = ContentHash()
        func field(_ text: String) { hasher.update(text.utf8); hasher.update([0x1F]) }
        field(model.name)
        field(model.version)
        for label in labels {
            field(label.identifier)
            field(label.displayName)
            label.synonyms.forEach(field)
            hasher.update([0x1E])
            label.parents.forEach(field)
            hasher.update([0x1E])
            for point in label.curve ?? [] {
                withUnsafeBytes(of: (point.threshold.bitPattern, point.precision.bitPattern, point.recall.bitPattern)) { hasher.update($0) }
            }
            hasher.update([label.curve == nil ? 0x1D : 0x1C])
        }
        hasher.update([0x1E])
        field(vocabulary)
        return hasher.finalizeHex()
    }

    private static func checkAcyclic(_ labels: [LabelDefinition]) throws {
        let parents = Dictionary(uniqueKeysWithValues: labels.map { ($0.identifier, $0.parents) })
        var state: [String: Bool] = [:]  // false: on the stack, true: done
        func visit(_ id: String) throws {
            if let done = state[id] {
                if !done { throw TagIndexError.invalidInput("the taxonomy has a cycle through '\(id)'") }
                return
            }
            state[id] = false
            for parent in parents[id] ?? [] { try visit(parent) }
            state[id] = true
        }
        for label in labels { try visit(label.identifier) }
    }

    /// Rebuilds every `best` (and the packed per-image labels, postings and counts) from
    /// the stored confidences and the current parent edges.
    static func recomputeSubtreeConfidences(_ db: Database) throws {
        guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM observations)") == true else { return }
        try db.execute(sql: """
            CREATE TEMP TABLE closure(ancestor INTEGER NOT NULL, descendant INTEGER NOT NULL);
            WITH RECURSIVE up(descendant, ancestor) AS (
                SELECT id, id FROM labels
                UNION
                SELECT up.descendant, p.parent_id FROM up JOIN label_parents p ON p.label_id = up.ancestor)
            INSERT INTO closure(ancestor, descendant) SELECT ancestor, descendant FROM up;
            CREATE TEMP TABLE rolled AS
                SELECT c.ancestor AS label_id, o.image_id AS image_id, MAX(o.confidence) AS best
                FROM observations o JOIN closure c ON c.descendant = o.label_id
                WHERE o.confidence IS NOT NULL
                GROUP BY c.ancestor, o.image_id;
            CREATE TEMP TABLE raw AS
                SELECT label_id, image_id, confidence FROM observations WHERE confidence IS NOT NULL;
            DELETE FROM observations;
            INSERT INTO observations(label_id, image_id, best, confidence)
                SELECT r.label_id, r.image_id, r.best, raw.confidence
                FROM rolled r LEFT JOIN raw ON raw.label_id = r.label_id AND raw.image_id = r.image_id;
            DROP TABLE temp.closure;
            DROP TABLE temp.rolled;
            DROP TABLE temp.raw;
            UPDATE labels SET image_count = (SELECT COUNT(*) FROM observations WHERE label_id = labels.id);
            """)
        try Postings.rebuild(db)
        var packed: [Int64: [PackedLabels.Entry]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT image_id, label_id, best, confidence FROM observations")
        while let row = try rows.next() {
            packed[row[0], default: []].append(PackedLabels.Entry(labelID: row[1], best: row[2], confidence: row[3]))
        }
        for (imageID, entries) in packed {
            try db.execute(
                sql: "UPDATE image_labels SET packed = ? WHERE image_id = ?",
                arguments: [Data(PackedLabels.pack(entries)), imageID])
        }
    }
}
