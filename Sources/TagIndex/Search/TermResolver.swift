import GRDB

/// Finds the labels a term names, in this order:
/// 1. a label's name (identifier, display name, synonym; case-insensitive, `_` = space), then a
///    vocabulary word (`beach`), each as typed and then in singular forms (`beaches`); a word that
///    is also a name adds its labels to the name's;
/// 2. free text over names and synonyms with FTS5 (as typed, then singular forms);
/// 3. otherwise an unknown-label error with "did you mean" suggestions.
///
/// Prefixes (`retriev*`) only use free text. The FTS5 query is built from quoted alphanumeric
/// tokens and bound as a parameter, so no user text is ever FTS or SQL syntax.
package struct TermResolver {
    let lookup: LabelLookup
    let taxonomy: TaxonomySnapshot

    package init(lookup: LabelLookup, taxonomy: TaxonomySnapshot) {
        self.lookup = lookup
        self.taxonomy = taxonomy
    }

    /// Resolves against a SQLite index inside a read of `db`.
    package init(db: Database, taxonomy: TaxonomySnapshot) {
        self.init(lookup: .sqlite(db), taxonomy: taxonomy)
    }

    /// How a term was resolved.
    package enum Resolution {
        /// By name: the labels of that name, the vocabulary word, or both.
        case name(TaxonomySnapshot.NameEntry)
        /// By free text over names (FTS5): the form that matched and its labels.
        case freeText(form: String, labelIDs: Set<Int64>)
    }

    /// The labels a resolved term searches; a vocabulary word the classifier cannot see throws
    /// ``TagIndexError/unsupportedWord(term:offset:explanation:)``.
    private func labels(of resolution: Resolution, _ term: SearchTerm) throws -> Set<Int64> {
        switch resolution {
        case .name(let entry):
            if let explanation = entry.word?.definition.unsupportedExplanation {
                throw TagIndexError.unsupportedWord(term: term.text, offset: term.offset, explanation: explanation)
            }
            return Set(entry.namedLabels + (entry.word?.labelIDs ?? []))
        case .freeText(_, let ids):
            return ids
        }
    }

    /// What a term searches: its labels, and the fewest faces of the images it also stands for
    /// (a vocabulary word's `facesAtLeast`, once the index stores faces: its taxonomy has the
    /// ``SQLiteIndex/faceLabel``). A word the classifier cannot see searches only those faces there;
    /// elsewhere it throws ``TagIndexError/unsupportedWord(term:offset:explanation:)``.
    func searched(for term: SearchTerm) throws -> (labels: Set<Int64>, facesAtLeast: Int?) {
        let resolution = try resolve(term)
        if case .name(let entry) = resolution, let word = entry.word,
            let faces = word.definition.facesAtLeast, taxonomy.faceLabelID != nil
        {
            let labels = word.definition.unsupportedExplanation == nil ? entry.namedLabels + word.labelIDs : entry.namedLabels
            return (Set(labels), faces)
        }
        return (try labels(of: resolution, term), nil)
    }

    func resolve(_ term: SearchTerm) throws -> Resolution {
        if term.kind != .prefix, let entry = taxonomy.entry(named: term.text) {
            return .name(entry)
        }
        let forms = term.kind == .prefix ? [term.text] : TermText.lookupForms(term.text)
        for form in forms {
            let found = try freeText(form, kind: term.kind)
            if !found.isEmpty { return .freeText(form: TermText.normalize(form), labelIDs: found) }
        }
        throw TagIndexError.unknownLabel(
            term: term.text, offset: term.offset,
            suggestions: Suggestions.closest(to: term.text, in: taxonomy, imageCounts: try lookup.allImageCounts()))
    }

    private func freeText(_ text: String, kind: SearchTerm.Kind) throws -> Set<Int64> {
        let words = TermText.tokens(text)
        guard !words.isEmpty else { return [] }
        let found = try lookup.freeText(words, kind)
        // FTS rows can outlive a label only inside a failed write; never return them.
        guard kind != .word else { return found.filter { taxonomy.labels[$0] != nil } }
        // FTS5 (and the in-memory index that mirrors it) holds a label's synonyms as one column, so a
        // phrase could run from the end of one synonym into the next: keep the labels one of whose
        // names holds the whole phrase.
        let phrase = words.flatMap(LabelTextIndex.tokens)
        return found.filter { id in
            guard let label = taxonomy.labels[id] else { return false }
            return ([label.identifier, label.displayName] + label.synonyms).contains { name in
                LabelTextIndex.contains(LabelTextIndex.tokens(name), phrase, lastIsPrefix: kind == .prefix)
            }
        }
    }

    /// Images per label (itself or below it, at any stored confidence), for ranking suggestions.
    static func imageCounts(_ db: Database) throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT id, image_count FROM labels WHERE image_count > 0") {
            counts[row[0]] = row[1]
        }
        return counts
    }
}
