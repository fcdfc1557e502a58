import Foundation
import GRDB

/// The stored side of corrections: the `corrections` and `model_labels` tables (see ``Schema``)
/// and the step that turns what the model gave an image into its corrected labels
/// (``CorrectionRules``). Corrected labels are written to `observations` like any others, so
/// search, facets, `show` and export read one set and agree without knowing about corrections.
package enum Corrections {
    typealias Labels = [(labelID: Int64, confidence: Int)]

    /// A stored correction row.
    package struct Stored {
        package var identifier: String
        var added: Bool
        var isUserLabel: Bool
        var date: Date
    }

    /// Whether any image is corrected (or still carries what the model gave it before a correction
    /// was taken back).
    static func anyStored(_ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db, sql: "SELECT EXISTS (SELECT 1 FROM corrections) OR EXISTS (SELECT 1 FROM model_labels)") ?? false
    }

    /// The corrections of a content hash.
    static func stored(forHash contentHash: String, _ db: Database) throws -> [Stored] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT label, added, user_label, corrected_at FROM corrections WHERE content_hash = ?"),
            arguments: [contentHash]
        ).map { Stored(identifier: $0[0], added: $0[1], isUserLabel: $0[2], date: Timestamps.date($0[3])) }
    }

    /// The corrected labels of content `contentHash` given what the model said of it, or nil when
    /// it has no correction. Added labels missing from the taxonomy become labels (user labels).
    static func correct(
        _ model: Labels, contentHash: String, writer: inout BatchWriter, taxonomy: inout TaxonomySnapshot,
        index: SQLiteIndex
    ) throws -> Labels? {
        let stored = try stored(forHash: contentHash, writer.db)
        guard !stored.isEmpty else { return nil }
        let removed = stored.filter { !$0.added }.compactMap { taxonomy.idByIdentifier[$0.identifier] }
        let added = try writer.labelIDs(
            for: stored.filter(\.added).map { LabelConfidence(identifier: $0.identifier, confidence: 1) },
            taxonomy: &taxonomy, index: index
        ).map(\.labelID)
        var confidences: [Int64: Int] = [:]
        for (labelID, value) in model { confidences[labelID] = max(confidences[labelID] ?? 0, value) }
        let corrected = CorrectionRules.apply(model: confidences, removed: removed, added: added, taxonomy: taxonomy)
        return corrected.sorted { $0.key < $1.key }.map { (labelID: $0.key, confidence: $0.value) }
    }

    /// Keeps what the model gave a corrected image (`model` non-nil) or forgets it (nil).
    static func keepModelLabels(_ model: Labels?, imageID: Int64, _ db: Database) throws {
        guard let model else {
            try db.cachedStatement(sql: "DELETE FROM model_labels WHERE image_id = ?").execute(arguments: [imageID])
            return
        }
        let packed = PackedLabels.pack(model.map { PackedLabels.Entry(labelID: $0.labelID, best: $0.confidence, confidence: $0.confidence) })
        try db.cachedStatement(sql: "INSERT OR REPLACE INTO model_labels(image_id, packed) VALUES (?, ?)")
            .execute(arguments: [imageID, Data(packed)])
    }

    /// Recomputes the stored labels of every classified image with content `contentHash` from what
    /// the model gave it and the corrections stored now.
    static func reapply(
        contentHash: String, writer: inout BatchWriter, taxonomy: inout TaxonomySnapshot, index: SQLiteIndex
    ) throws {
        let rows = try Row.fetchAll(
            writer.db,
            sql: """
                SELECT i.id, ml.packed, il.packed FROM images AS i
                LEFT JOIN model_labels AS ml ON ml.image_id = i.id
                LEFT JOIN image_labels AS il ON il.image_id = i.id
                WHERE i.content_hash = ? AND i.error_stage IS NULL
                """,
            arguments: [contentHash])
        for row in rows {
            let imageID: Int64 = row[0]
            // Until its first correction, an image's stored labels are the model's own.
            let packed: Data = row[1] ?? row[2] ?? Data()
            var model: Labels = []
            packed.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { labelID, _, confidence in
                    if confidence > 0 { model.append((Int64(labelID), confidence)) }
                }
            }
            let corrected = try correct(model, contentHash: contentHash, writer: &writer, taxonomy: &taxonomy, index: index)
            let (confidence, best) = BatchWriter.rollUp(corrected ?? model, taxonomy: taxonomy)
            try writer.replaceObservations(imageID, confidence: confidence, best: best)
            try writer.db.execute(
                sql: "UPDATE images SET top_confidence = ? WHERE id = ?", arguments: [best.values.max(), imageID])
            try keepModelLabels(corrected == nil ? nil : model, imageID: imageID, writer.db)
        }
    }

    /// Recomputes every corrected image (after the taxonomy's parents changed: a removal covers
    /// the labels below it as the taxonomy has them now).
    static func reapplyAll(_ db: Database, index: SQLiteIndex) throws {
        let hashes = try String.fetchAll(db, sql: """
            SELECT DISTINCT content_hash FROM corrections
            UNION SELECT i.content_hash FROM model_labels AS ml JOIN images AS i ON i.id = ml.image_id
            WHERE i.content_hash IS NOT NULL
            """)
        guard !hashes.isEmpty else { return }
        var taxonomy = try TaxonomySnapshot.load(db)
        var writer = BatchWriter(db: db)
        for hash in hashes { try reapply(contentHash: hash, writer: &writer, taxonomy: &taxonomy, index: index) }
        try writer.flushCounts()
    }

    /// The label a person means by `name`: a label's identifier, name or synonym as in search
    /// (exact, not free text), else a user label of that name.
    package static func label(named name: String, taxonomy: TaxonomySnapshot, _ db: Database) throws -> CorrectionLabel {
        try label(
            named: name, taxonomy: taxonomy,
            userLabels: Set(try String.fetchAll(db, sql: "SELECT DISTINCT label FROM corrections WHERE user_label = 1")))
    }

    /// The same, given the names of the user labels stored now (either backend).
    package static func label(named name: String, taxonomy: TaxonomySnapshot, userLabels: Set<String>) throws -> CorrectionLabel {
        let text = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw TagIndexError.invalidInput("a label needs a name") }
        guard text.count <= 200 else { throw TagIndexError.invalidInput("a label name has at most 200 characters") }
        // Control characters cannot be written to XMP; '|' separates the levels of a keyword path.
        guard !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0 == "|" }) else {
            throw TagIndexError.invalidInput("a label name cannot hold control characters or '|': \(text.debugDescription)")
        }
        if let id = taxonomy.idByIdentifier[text] ?? uniqueLabel(named: text, taxonomy: taxonomy),
            let label = taxonomy.labels[id]
        {
            return CorrectionLabel(
                identifier: label.identifier, displayName: label.displayName,
                isUserLabel: userLabels.contains(label.identifier))
        }
        if let entry = taxonomy.entry(named: text) {
            let named = entry.namedLabels.compactMap { taxonomy.labels[$0]?.identifier }.sorted()
            if named.count > 1 {
                throw TagIndexError.invalidInput(
                    "'\(text)' names several labels (\(named.joined(separator: ", "))); use one of these identifiers")
            }
            if let word = entry.word {
                throw TagIndexError.invalidInput(
                    "'\(text)' is a search word (for \(word.definition.labels.joined(separator: ", "))), not a label; name the label itself")
            }
        }
        return CorrectionLabel(identifier: text, displayName: text, isUserLabel: true)
    }

    private static func uniqueLabel(named text: String, taxonomy: TaxonomySnapshot) -> Int64? {
        guard let entry = taxonomy.entry(named: text), entry.namedLabels.count == 1 else { return nil }
        return entry.namedLabels[0]
    }
}
