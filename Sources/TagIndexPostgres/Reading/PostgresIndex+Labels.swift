import TagIndex
import PostgresNIO

extension PostgresIndex {
    /// For every label with at least one image: how many indexed images carry it (itself or a
    /// label below it), as ``SQLiteIndex/labelImageCounts()``. Read from the counts the writers keep
    /// on the label rows, not by counting observations.
    ///
    /// Usage: `let counts = try await index.labelImageCounts()   // ["dog": 120, ...]`
    public func labelImageCounts() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let rows = try await session.all("SELECT identifier, image_count FROM labels WHERE image_count > 0") {
            try $0.decode((String, Int64).self)
        }
        for (identifier, count) in rows { counts[identifier] = Int(count) }
        return counts
    }

    /// The search vocabulary installed with the taxonomy, sorted by word (empty when none was),
    /// as ``SQLiteIndex/vocabulary()``.
    ///
    /// Usage: `let words = try await index.vocabulary()`
    public func vocabulary() async throws -> [VocabularyWord] {
        let stored = try await session.all("SELECT value FROM meta WHERE key = 'vocabulary'") { try $0.decode(String?.self) }
        return try TaxonomySnapshot.vocabulary(json: stored.first ?? nil)
    }

    /// What `term` means to `search`, resolved against this database's taxonomy exactly as a
    /// search resolves it (as ``SQLiteIndex/meaning(of:)``).
    ///
    /// Usage: `let meaning = try await index.meaning(of: "beaches")`
    public func meaning(of term: String) async throws -> TermMeaning {
        let (taxonomy, lookup, _) = try await PostgresTaxonomy.load(session)
        return try TermMeaning.resolve(term, TermResolver(lookup: lookup, taxonomy: taxonomy))
    }
}
