import GRDB

/// What a search term means: the name it matched and the labels it searches, from the taxonomy, the
/// search vocabulary or free text, resolved exactly as `search` resolves it.
///
/// ```swift
/// let meaning = try index.meaning(of: "beaches")
/// print(meaning.matchedName, meaning.labels)    // "beach" ["breakwater", "sandbar", "seashore"]
/// ```
public struct TermMeaning: Sendable, Hashable {
    /// The term as asked.
    public var term: String
    /// The name it matched, normalized: the singular for a plural (`beach` for `beaches`), or the
    /// form free text matched.
    public var matchedName: String
    /// Identifiers of the labels whose name (identifier, display name or synonym) it is.
    public var namedLabels: [String]
    /// The vocabulary word it is, if any (mapped, or something the classifier cannot see).
    public var word: VocabularyWord?
    /// True when no name matched and free text over the names found the labels.
    public var isFreeText: Bool
    /// Identifiers of every label the term searches (each with its subtree), sorted; empty for a
    /// word the classifier cannot see.
    public var labels: [String]
    /// The fewest faces of the images the term also searches: the vocabulary word's `facesAtLeast`
    /// where the index stores faces (its taxonomy has ``SQLiteIndex/faceLabel``), else nil.
    public var facesAtLeast: Int? = nil

    /// True for a vocabulary word the classifier cannot see and that searches no faces here:
    /// searching it is an error that says so.
    ///
    /// ```swift
    /// if meaning.isUnsupported { print(meaning.word!.unsupportedExplanation!) }
    /// ```
    public var isUnsupported: Bool { word?.unsupportedExplanation != nil && facesAtLeast == nil }
}

extension SQLiteIndex {
    /// What `term` means to `search`: the labels it searches and whether they come from a label's
    /// name, the vocabulary or free text. A word the classifier cannot see is returned (with its
    /// sentence in ``TermMeaning/word``), not thrown; a term that names nothing throws
    /// ``TagIndexError/unknownLabel(term:offset:suggestions:)`` with "did you mean" suggestions.
    ///
    /// ```swift
    /// let sky = try index.meaning(of: "sky")
    /// print(sky.word?.unsupportedExplanation ?? "")
    /// ```
    public func meaning(of term: String) throws -> TermMeaning {
        try guardingStorage {
            try database.read { db in
                try TermMeaning.resolve(term, TermResolver(db: db, taxonomy: try taxonomy(db)))
            }
        }
    }

    /// The search vocabulary installed with the taxonomy, sorted by word (empty when none was).
    ///
    /// ```swift
    /// for word in try index.vocabulary() where word.unsupportedExplanation != nil { print(word.word) }
    /// ```
    public func vocabulary() throws -> [VocabularyWord] {
        try guardingStorage { try database.read { db in try TaxonomySnapshot.vocabulary(db) } }
    }
}

extension TermMeaning {
    /// What `term` means under `resolver` (either backend's lookups), as ``SQLiteIndex/meaning(of:)`` answers.
    package static func resolve(_ term: String, _ resolver: TermResolver) throws -> TermMeaning {
        let taxonomy = resolver.taxonomy
        func identifiers(_ ids: some Sequence<Int64>) -> [String] {
            Set(ids.compactMap { taxonomy.labels[$0]?.identifier }).sorted()
        }
        switch try resolver.resolve(SearchTerm(term)) {
        case .name(let entry):
            let searched = entry.word?.definition.unsupportedExplanation == nil
                ? entry.namedLabels + (entry.word?.labelIDs ?? []) : []
            return TermMeaning(
                term: term, matchedName: entry.form, namedLabels: identifiers(entry.namedLabels),
                word: entry.word?.definition, isFreeText: false, labels: identifiers(searched),
                facesAtLeast: taxonomy.faceLabelID == nil ? nil : entry.word?.definition.facesAtLeast)
        case .freeText(let form, let ids):
            return TermMeaning(
                term: term, matchedName: form, namedLabels: [], word: nil, isFreeText: true,
                labels: identifiers(ids))
        }
    }
}
