import ClassifySupport
import GRDB

/// What resolving search terms and planning a search need beyond the taxonomy, from whichever
/// backend holds the index: free text over label names, stored image counts, and the labels people
/// added. SQLite answers from its tables (FTS5, `labels.image_count`, `corrections`); PostgreSQL
/// from values read once per search (see TagIndexPostgres's `Schema/PostgresTaxonomy.swift`).
///
/// Usage: `let planner = MatchPlanner(lookup: .sqlite(db), taxonomy: taxonomy, query: query)`
package struct LabelLookup {
    /// Labels whose identifier, display name or synonyms contain `words` (FTS5 semantics: every
    /// word, `phrase` as consecutive words, `prefix` as consecutive words the last of which is a
    /// prefix: `"golden retr"*`, `retriev*`).
    var freeText: (_ words: [String], _ kind: SearchTerm.Kind) throws -> Set<Int64>
    /// Stored image counts of `ids` (0 for labels without images).
    var imageCounts: (_ ids: [Int64]) throws -> [Int64: Int]
    /// Every label with images and its count, for ranking suggestions.
    package var allImageCounts: () throws -> [Int64: Int]
    /// Labels a person added somewhere (they pass any calibrated filter there).
    package var addedLabelIDs: () throws -> Set<Int64>
    /// The people of the stored grouping (`person:` terms and plain names).
    package var people: () throws -> PeopleDirectory

    /// The lookups of a SQLite index, inside a read of `db`.
    static func sqlite(_ db: Database) -> LabelLookup {
        // Read once per search, however many words ask.
        let people = Locked<PeopleDirectory?>(nil)
        return LabelLookup(
            freeText: { words, kind in
                let escaped = words.map { $0.replacingOccurrences(of: "\"", with: "\"\"") }
                let match: String =
                    switch kind {
                    case .word, .person: escaped.map { "\"" + $0 + "\"" }.joined(separator: " ")
                    case .phrase: "\"" + escaped.joined(separator: " ") + "\""
                    case .prefix: "\"" + escaped.joined(separator: " ") + "\"*"
                    }
                return try Set(Int64.fetchAll(
                    db.cachedStatement(sql: "SELECT rowid FROM label_text WHERE label_text MATCH ?"), arguments: [match]))
            },
            imageCounts: { ids in
                var counts: [Int64: Int] = [:]
                let statement = try db.cachedStatement(sql: "SELECT image_count FROM labels WHERE id = ?")
                for id in ids { counts[id] = try Int.fetchOne(statement, arguments: [id]) ?? 0 }
                return counts
            },
            allImageCounts: {
                var counts: [Int64: Int] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT id, image_count FROM labels WHERE image_count > 0") {
                    counts[row[0]] = row[1]
                }
                return counts
            },
            addedLabelIDs: { try Corrections.addedLabelIDs(db) },
            people: {
                if let known = people.withLock({ $0 }) { return known }
                let read = PeopleDirectory(entries: try Row.fetchAll(db, sql: PeopleDirectory.query).map { row in
                    PeopleDirectory.Entry(id: row[0], name: row[1], photoCount: row[2])
                })
                people.withLock { $0 = read }
                return read
            })
    }

    /// Lookups answered from memory: `labelText` for free text, counts and corrections read beforehand.
    package static func preloaded(
        labelText: LabelTextIndex, imageCounts: [Int64: Int], addedLabelIDs: Set<Int64>, people: PeopleDirectory = PeopleDirectory(entries: [])
    ) -> LabelLookup {
        LabelLookup(
            freeText: { words, kind in labelText.matches(words, kind: kind) },
            imageCounts: { ids in Dictionary(uniqueKeysWithValues: Set(ids).map { ($0, imageCounts[$0] ?? 0) }) },
            allImageCounts: { imageCounts.filter { $0.value > 0 } },
            addedLabelIDs: { addedLabelIDs },
            people: { people })
    }
}
