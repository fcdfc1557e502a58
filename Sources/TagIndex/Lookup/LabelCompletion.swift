import GRDB

/// A label (or a search-vocabulary word) offered while a search term is typed: the name that
/// matched and how many indexed images carry the label (itself or a label below it, at the
/// storage floor; for a word, its most frequent label).
///
/// ```swift
/// for completion in try index.labelCompletions(forPrefix: "retr") { print(completion.matchedName, completion.imageCount) }
/// ```
public struct LabelCompletion: Sendable, Hashable {
    /// Label identifier, or the vocabulary word: what a query can use as it is.
    public var identifier: String
    /// Label display name.
    public var displayName: String
    /// The identifier, display name or synonym that starts with the typed text (as written in the taxonomy).
    public var matchedName: String
    /// Indexed images carrying the label.
    public var imageCount: Int
    /// Whether this is a word of the search vocabulary (`beach`, `living room`) rather than a label.
    public var isVocabularyWord = false
}

extension SQLiteIndex {
    /// Labels with a name (identifier, display name or synonym) starting with `prefix`, or with a
    /// word of a name starting with it, and the search vocabulary's words (those that stand for
    /// labels) that do; case-insensitive, `_` = space.
    ///
    /// Labels present in the index come first; among them and among the rest, names that start
    /// with the prefix before names where only a later word does, then most images, then shorter
    /// names. One entry per label.
    ///
    /// ```swift
    /// let completions = try index.labelCompletions(forPrefix: "golden ret", limit: 5)
    /// ```
    public func labelCompletions(forPrefix prefix: String, limit: Int = 8) throws -> [LabelCompletion] {
        guard !TermText.normalize(prefix).isEmpty, limit > 0 else { return [] }
        return try guardingStorage {
            try database.read { db in
                LabelCompletion.ranked(
                    forPrefix: prefix, limit: limit, taxonomy: try taxonomy(db), imageCounts: try Self.imageCountsByLabelID(db))
            }
        }
    }
}

extension LabelCompletion {
    /// The completions of `prefix` in `taxonomy` with `imageCounts` (by label id), ranked as
    /// ``SQLiteIndex/labelCompletions(forPrefix:limit:)`` says: what both backends answer.
    package static func ranked(forPrefix prefix: String, limit: Int, taxonomy: TaxonomySnapshot, imageCounts counts: [Int64: Int]) -> [LabelCompletion] {
        let needle = TermText.normalize(prefix)
        guard !needle.isEmpty, limit > 0 else { return [] }
        var ranked: [(completion: LabelCompletion, wordMatch: Bool)] = []
        // nil: no match; false: the name starts with the text; true: only a later word does.
        func matches(_ name: String) -> Bool? {
            let normalized = TermText.normalize(name)
            if normalized.hasPrefix(needle) { return false }
            if normalized.split(separator: " ").dropFirst().contains(where: { $0.hasPrefix(needle) })
                || normalized.contains(" " + needle)
            {
                return true
            }
            return nil
        }
        for label in taxonomy.labels.values {
            var best: (name: String, wordMatch: Bool)?
            for name in [label.identifier, label.displayName] + label.synonyms {
                guard let wordMatch = matches(name) else { continue }
                if let current = best, (current.wordMatch ? 1 : 0, current.name.count) <= (wordMatch ? 1 : 0, name.count) {
                    continue
                }
                best = (name, wordMatch)
            }
            guard let best else { continue }
            ranked.append((
                LabelCompletion(
                    identifier: label.identifier, displayName: label.displayName, matchedName: best.name,
                    imageCount: counts[label.id] ?? 0),
                best.wordMatch))
        }
        // Vocabulary words that are not also a label's name (those are offered as the label).
        var seenWords: Set<String> = []
        for word in taxonomy.words.values where seenWords.insert(word.definition.word).inserted {
            guard case .labels = word.definition.meaning, let wordMatch = matches(word.definition.word),
                taxonomy.idsByName[TermText.normalize(word.definition.word)] == nil
            else { continue }
            var completion = LabelCompletion(
                identifier: word.definition.word, displayName: word.definition.word, matchedName: word.definition.word,
                imageCount: word.labelIDs.map { counts[$0] ?? 0 }.max() ?? 0)
            completion.isVocabularyWord = true
            ranked.append((completion, wordMatch))
        }
        ranked.sort { a, b in
            let keyA = (a.completion.imageCount > 0 ? 0 : 1, a.wordMatch ? 1 : 0, -a.completion.imageCount, a.completion.matchedName.count)
            let keyB = (b.completion.imageCount > 0 ? 0 : 1, b.wordMatch ? 1 : 0, -b.completion.imageCount, b.completion.matchedName.count)
            if keyA != keyB { return keyA < keyB }
            return a.completion.identifier < b.completion.identifier
        }
        return ranked.prefix(limit).map(\.completion)
    }
}
