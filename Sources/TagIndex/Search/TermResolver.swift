import GRDB

/// Finds the labels a term names: exact names first (identifier, display name,
/// synonym; case-insensitive, `_` = space), then free text over names and
/// synonyms with FTS5. The FTS5 query is built from quoted alphanumeric tokens
/// and bound as a parameter, so no user text is ever FTS or SQL syntax.
struct TermResolver {
    let db: Database
    let taxonomy: TaxonomySnapshot

    func labels(for term: SearchTerm) throws -> Set<Int64> {
        if term.kind != .prefix, let ids = taxonomy.idsByName[TermText.normalize(term.text)] {
            return Set(ids)
        }
        let tokens = TermText.tokens(term.text).map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var found: Set<Int64> = []
        if !tokens.isEmpty {
            let match: String =
                switch term.kind {
                case .word: tokens.joined(separator: " ")
                case .phrase: "\"" + TermText.tokens(term.text).joined(separator: " ") + "\""
                case .prefix: (tokens.dropLast() + [tokens.last! + "*"]).joined(separator: " ")
                }
            found = try Set(Int64.fetchAll(
                db.cachedStatement(sql: "SELECT rowid FROM label_text WHERE label_text MATCH ?"),
                arguments: [match]))
            // FTS rows can outlive a label only inside a failed write; never return them.
            found = found.filter { taxonomy.labels[$0] != nil }
        }
        guard !found.isEmpty else {
            throw TagIndexError.unknownLabel(
                term: term.text, offset: term.offset,
                suggestions: Suggestions.closest(to: term.text, in: taxonomy))
        }
        return found
    }
}
