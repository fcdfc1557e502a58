import TagIndex
import PostgresNIO

/// The taxonomy of a PostgreSQL index and what term resolution reads besides it (image counts,
/// labels people added), read in one round of statements per search.
///
/// Usage: `let (taxonomy, lookup, _) = try await PostgresTaxonomy.load(session)`
enum PostgresTaxonomy {
    /// The rows ``TaxonomySnapshot`` is built from, as the SQLite index stores them.
    static func rows(_ session: PostgresSession) async throws -> TaxonomySnapshot.Rows {
        var rows = TaxonomySnapshot.Rows()
        let meta = try await session.all("SELECT key, value FROM meta WHERE key IN ('taxonomy_generation', 'vocabulary')") {
            try $0.decode((String, String?).self)
        }
        for (key, value) in meta {
            if key == "taxonomy_generation" { rows.generation = value.flatMap { Int64($0) } ?? 0 }
            if key == "vocabulary" { rows.vocabularyJSON = value }
        }
        rows.labels = try await session.all("SELECT id, identifier, display_name, synonyms FROM labels") {
            try $0.decode((Int64, String, String, String).self)
        }
        rows.parents = try await session.all("SELECT label_id, parent_id FROM label_parents") { try $0.decode((Int64, Int64).self) }
        rows.curves = try await session.all("SELECT id, points FROM curves") { row in
            let (id, points) = try row.decode((Int64, ByteBuffer).self)
            return (id, Array(points.readableBytesView))
        }
        rows.labelCurves = try await session.all("SELECT id, curve_id FROM labels WHERE curve_id IS NOT NULL") {
            try $0.decode((Int64, Int64).self)
        }
        return rows
    }

    /// The stored taxonomy generation (it changes whenever labels do).
    static func generation(_ session: PostgresSession) async throws -> Int64 {
        let values = try await session.all("SELECT value FROM meta WHERE key = 'taxonomy_generation'") { try $0.decode(String?.self) }
        return values.first.flatMap { $0.flatMap { Int64($0) } } ?? 0
    }

    /// The snapshot and the lookups of term resolution, answered from memory. `cached` (a snapshot
    /// and its label text index from an earlier search) is reused while the generation is the
    /// same, so a search does not read and rebuild 1,500 labels each time; the image counts and
    /// added labels are read every time (indexers change them).
    static func load(
        _ session: PostgresSession, cached: (taxonomy: TaxonomySnapshot, labelText: LabelTextIndex)? = nil
    ) async throws -> (TaxonomySnapshot, LabelLookup, labelText: LabelTextIndex) {
        let taxonomy: TaxonomySnapshot, labelText: LabelTextIndex
        if let cached, try await generation(session) == cached.taxonomy.generation {
            (taxonomy, labelText) = cached
        } else {
            taxonomy = try TaxonomySnapshot.build(try await rows(session))
            labelText = LabelTextIndex(taxonomy)
        }
        var counts: [Int64: Int] = [:]
        let stored = try await session.all("SELECT id, image_count FROM labels WHERE image_count > 0") { try $0.decode((Int64, Int64).self) }
        for (id, count) in stored {
            counts[id] = Int(count)
        }
        let added = try await PostgresSearcher.addedLabelIDs(session)
        let people = PeopleDirectory(entries: try await session.all(PeopleDirectory.query) { row in
            let (id, name, photos) = try row.decode((Int64, String?, Int64).self)
            return PeopleDirectory.Entry(id: id, name: name, photoCount: Int(photos))
        })
        return (taxonomy, .preloaded(labelText: labelText, imageCounts: counts, addedLabelIDs: added, people: people), labelText)
    }
}
