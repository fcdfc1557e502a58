/// The rules a search vocabulary must follow against its taxonomy, shared by the model loader
/// (`vocabulary.json`, checked on load) and the index (`replaceTaxonomy`), each of which turns a
/// problem into its own error.
///
/// Search answers a label's name before the vocabulary, so a word that is also a name could never
/// be reached: such a word must list every label of that name among its evidence (it then widens
/// what the name finds), and a word marked unsupported must not be a name at all.
///
/// ```swift
/// if let problem = VocabularyCheck.firstProblem(entries, labels: labels) { throw MyError(problem) }
/// ```
public enum VocabularyCheck {
    /// One vocabulary word as the check sees it: `labels` for a mapped word, `unsupported` for one
    /// the classifier cannot see.
    public struct Entry: Sendable {
        public var word: String
        public var labels: [String]?
        public var unsupported: String?
        public var facesAtLeast: Int?

        /// Creates an entry.
        ///
        /// ```swift
        /// VocabularyCheck.Entry(word: "beach", labels: ["seashore"], unsupported: nil, facesAtLeast: nil)
        /// ```
        public init(word: String, labels: [String]?, unsupported: String?, facesAtLeast: Int?) {
            self.word = word
            self.labels = labels
            self.unsupported = unsupported
            self.facesAtLeast = facesAtLeast
        }
    }

    /// The first rule `entries` break, as a sentence; nil when they follow all of them. `labels`
    /// gives each label's identifier and all its names (identifier, display name, synonyms).
    ///
    /// ```swift
    /// let problem = VocabularyCheck.firstProblem(entries, labels: [(identifier: "dog", names: ["dog", "Dog"])])
    /// ```
    public static func firstProblem(_ entries: [Entry], labels: [(identifier: String, names: [String])]) -> String? {
        let identifiers = Set(labels.map(\.identifier))
        // Only names that some word could be matter: the labels behind each of the words' forms
        // (a model's labels have ~7,000 names, its vocabulary a few hundred words).
        let wordForms = Set(entries.flatMap { [$0.word, NameForms.tokenForm($0.word)] })
        var named: [String: Set<String>] = [:]
        for label in labels {
            for name in label.names {
                for form in [NameForms.normalized(name), NameForms.tokenForm(name)] where wordForms.contains(form) {
                    named[form, default: []].insert(label.identifier)
                }
            }
        }
        var seen: Set<String> = []
        for entry in entries {
            let word = entry.word
            guard !word.isEmpty, NameForms.normalized(word) == word else {
                return "word '\(word)' must be lowercase words separated by single spaces"
            }
            guard seen.insert(word).inserted else { return "word '\(word)' is listed twice" }
            if let faces = entry.facesAtLeast, faces < 1 {
                return "word '\(word)' has facesAtLeast \(faces); it must be 1 or more"
            }
            let names = named[word, default: []].union(named[NameForms.tokenForm(word), default: []])
            switch (entry.labels, entry.unsupported) {
            case (let evidence?, nil):
                guard !evidence.isEmpty else { return "word '\(word)' names no label" }
                if let unknown = evidence.first(where: { !identifiers.contains($0) }) {
                    return "word '\(word)' names an unknown label '\(unknown)'"
                }
                let missing = names.subtracting(evidence).sorted()
                if !missing.isEmpty {
                    return "word '\(word)' is the name of \(missing.joined(separator: ", ")), which search answers "
                        + "first; list \(missing.count == 1 ? "it" : "them") among the word's labels to widen the name"
                }
            case (nil, let explanation?):
                guard !explanation.isEmpty else { return "unsupported word '\(word)' needs a sentence saying what to try" }
                if !names.isEmpty {
                    return "word '\(word)' is the name of \(names.sorted().joined(separator: ", ")) "
                        + "and cannot be marked as something the classifier cannot see"
                }
            default:
                return "word '\(word)' needs either labels or an unsupported sentence, not both or neither"
            }
        }
        return nil
    }
}
