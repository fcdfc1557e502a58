/// An everyday search word that is not a label's name, installed with the taxonomy: either the
/// labels that are evidence for it (`beach` = seashore, sandbar, breakwater), scored as an OR of
/// them, or a sentence saying the classifier cannot see it and what to try instead (`sky`).
///
/// A word may also be a label's name when its labels include that label: it then widens what the
/// name finds (`mountain` = the label mountain, plus valley, cliff and promontory).
///
/// ```swift
/// let beach = VocabularyWord(word: "beach", labels: ["seashore", "sandbar"], reason: "shore scenes")
/// let sky = VocabularyWord(
///     word: "sky", unsupported: "The classifier cannot see the sky. Search by color: --color 87CEEB.",
///     reason: "no class is the sky")
/// ```
public struct VocabularyWord: Sendable, Hashable, Codable {
    /// What a word stands for.
    ///
    /// ```swift
    /// if case .labels(let identifiers) = word.meaning { print(identifiers) }
    /// ```
    public enum Meaning: Sendable, Hashable {
        /// Identifiers of the labels that are evidence for the word (each with its subtree).
        case labels([String])
        /// The word names nothing the classifier can see; the sentence says so and what to try.
        case unsupported(String)
    }

    /// The word, lowercase with single spaces (`beach`, `living room`).
    public var word: String
    /// Its labels, or why it has none.
    public var meaning: Meaning
    /// Once the index stores faces, the word also stands for images with at least this many faces
    /// (`people`: 1, `group`: 3): search matches `(labels AND NOT 1...N-1 faces) OR N+ faces`, or the
    /// faces alone for an unsupported word. Data only until faces exist.
    public var facesAtLeast: Int?
    /// Why the word means what it means (shown by `classify-tool labels WORD`).
    public var reason: String

    /// A word scored as an OR of `labels`.
    ///
    /// ```swift
    /// VocabularyWord(word: "lake", labels: ["lakeside", "boathouse"], reason: "lake scenes")
    /// ```
    public init(word: String, labels: [String], facesAtLeast: Int? = nil, reason: String) {
        self.word = word
        self.meaning = .labels(labels)
        self.facesAtLeast = facesAtLeast
        self.reason = reason
    }

    /// A word the classifier cannot see; `explanation` is shown instead of results.
    ///
    /// ```swift
    /// VocabularyWord(word: "sunset", unsupported: "The classifier cannot see sunsets ...", reason: "no class")
    /// ```
    public init(word: String, unsupported explanation: String, facesAtLeast: Int? = nil, reason: String) {
        self.word = word
        self.meaning = .unsupported(explanation)
        self.facesAtLeast = facesAtLeast
        self.reason = reason
    }

    /// The labels of a mapped word; empty for an unsupported one.
    ///
    /// ```swift
    /// let identifiers = word.labels
    /// ```
    public var labels: [String] {
        if case .labels(let identifiers) = meaning { identifiers } else { [] }
    }

    /// The sentence of an unsupported word; nil for a mapped one.
    ///
    /// ```swift
    /// if let explanation = word.unsupportedExplanation { print(explanation) }
    /// ```
    public var unsupportedExplanation: String? {
        if case .unsupported(let explanation) = meaning { explanation } else { nil }
    }

    private enum CodingKeys: String, CodingKey { case word, labels, unsupported, facesAtLeast, reason }

    /// Decodes the layout of `vocabulary.json`'s entries: `labels` or `unsupported`.
    ///
    /// ```swift
    /// let words = try JSONDecoder().decode([VocabularyWord].self, from: data)
    /// ```
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        word = try container.decode(String.self, forKey: .word)
        reason = try container.decodeIfPresent(String.self, forKey: .reason) ?? ""
        facesAtLeast = try container.decodeIfPresent(Int.self, forKey: .facesAtLeast)
        if let explanation = try container.decodeIfPresent(String.self, forKey: .unsupported) {
            meaning = .unsupported(explanation)
        } else {
            meaning = .labels(try container.decode([String].self, forKey: .labels))
        }
    }

    /// Encodes in the layout of `vocabulary.json`'s entries.
    ///
    /// ```swift
    /// let data = try JSONEncoder().encode(words)
    /// ```
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(word, forKey: .word)
        switch meaning {
        case .labels(let identifiers): try container.encode(identifiers, forKey: .labels)
        case .unsupported(let explanation): try container.encode(explanation, forKey: .unsupported)
        }
        try container.encodeIfPresent(facesAtLeast, forKey: .facesAtLeast)
        try container.encode(reason, forKey: .reason)
    }
}
