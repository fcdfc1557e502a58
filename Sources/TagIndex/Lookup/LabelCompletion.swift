import GRDB

/// A label offered while a search term is typed: the name that matched and how many indexed images
/// carry the label (itself or a label below it, at the storage floor).
///
/// ```swift
/// for completion in try index.labelCompletions(forPrefix: "retr") { print(completion.matchedName, completion.imageCount) }
/// ```
public struct LabelCompletion: Sendable, Hashable {
    /// Label identifier, which a query can use as it is.
    public var identifier: String
    /// Label display name.
    public var displayName: String
    /// The identifier, display name or synonym that starts with the typed text (as written in the taxonomy).
    public var matchedName: String
    /// Indexed images carrying the label.
    public var imageCount: Int
}

extension TagIndex {
    /// Labels with a name (identifier, display name or synonym) starting with `prefix`, or with a
    /// word of a name starting with it; case-insensitive, `_` = space.
    ///
    /// Labels present in the index come first; among them and among the rest, names that start
    /// with the prefix before names where only a later word does, then most images, then shorter
    /// names. One entry per label.
    ///
    /// ```swift
    /// let completions = try index.labelCompletions(forPrefix: "golden ret", limit: 5)
    /// ```
    public func labelCompletions(forPrefix prefix: String, limit: Int = 8) throws -> [LabelCompletion] {
        let needle = TermText.normalize(prefix)
        guard !needle.isEmpty, limit > 0 else { return [] }
        return try guardingStorage {
            try database.read { db in
                let taxonomy = try taxonomy(db)
                let counts = try Self.imageCountsByLabelID(db)
                var ranked: [(completion: LabelCompletion, wordMatch: Bool)] = []
                for label in taxonomy.labels.values {
                    var best: (name: String, wordMatch: Bool)?
                    for name in [label.identifier, label.displayName] + label.synonyms {
                        let normalized = TermText.normalize(name)
                        let wordMatch: Bool
                        if normalized.hasPrefix(needle) {
                            wordMatch = false
                        } else if normalized.split(separator: " ").dropFirst().contains(where: { $0.hasPrefix(needle) })
                            || normalized.contains(" " + needle)
                        {
                            wordMatch = true
                        } else {
                            continue
                        }
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
                ranked.sort { a, b in
                    let keyA = (a.completion.imageCount > 0 ? 0 : 1, a.wordMatch ? 1 : 0, -a.completion.imageCount, a.completion.matchedName.count)
                    let keyB = (b.completion.imageCount > 0 ? 0 : 1, b.wordMatch ? 1 : 0, -b.completion.imageCount, b.completion.matchedName.count)
                    if keyA != keyB { return keyA < keyB }
                    return a.completion.identifier < b.completion.identifier
                }
                return ranked.prefix(limit).map(\.completion)
            }
        }
    }
}
