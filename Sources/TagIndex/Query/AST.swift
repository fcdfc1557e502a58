/// A search term: label identifier, display name or synonym (case-insensitive,
/// `_` and space equivalent), a quoted phrase, or a prefix.
///
/// A term matches its labels and everything below them in the taxonomy. A word
/// or phrase that names no label is looked up as free text (FTS5) over label
/// names and synonyms, so `retriever` matches every retriever.
///
/// ```swift
/// let term = SearchTerm("dog", minimumConfidence: 0.6)   // dog:0.6
/// ```
public struct SearchTerm: Sendable, Hashable {
    /// How the text is matched.
    ///
    /// ```swift
    /// let prefix = SearchTerm("retriev", kind: .prefix)
    /// ```
    public enum Kind: Sendable, Hashable {
        /// A single word, e.g. `dog` or `golden_retriever`.
        case word
        /// A quoted phrase, e.g. `"golden retriever"`.
        case phrase
        /// A prefix of a label name's word, e.g. `retriev*`.
        case prefix
        /// A person of the stored grouping by name or id, e.g. `person:anna`, `person:7` (see
        /// ``PeopleDirectory`` for how names match).
        case person
    }

    /// The term as typed, without quotes or `*`.
    public var text: String
    /// How `text` is matched.
    public var kind: Kind
    /// Per-term minimum confidence (`dog:0.6`); replaces the query's global one.
    public var minimumConfidence: Double?
    /// Character offset in the query string, for error messages.
    public var offset: Int?

    /// Creates a term.
    ///
    /// ```swift
    /// SearchTerm("retriev", kind: .prefix)
    /// ```
    public init(_ text: String, kind: Kind = .word, minimumConfidence: Double? = nil, offset: Int? = nil) {
        self.text = text
        self.kind = kind
        self.minimumConfidence = minimumConfidence
        self.offset = offset
    }
}

/// A boolean search expression over terms.
///
/// Scores (0...1): a term scores the highest confidence among the labels it
/// matches; AND scores the minimum of its scored operands; OR the maximum of its
/// matching scored operands; NOT matches images where its operand does not and
/// contributes no score. A result with no scored operand (e.g. `-dog`) scores 0.
///
/// ```swift
/// let expression: QueryExpression = .and([.term(SearchTerm("dog")), .not(.term(SearchTerm("cat")))])
/// ```
public indirect enum QueryExpression: Sendable, Hashable {
    /// A term.
    case term(SearchTerm)
    /// All operands match.
    case and([QueryExpression])
    /// At least one operand matches.
    case or([QueryExpression])
    /// The operand does not match.
    case not(QueryExpression)

    /// A word term.
    ///
    /// ```swift
    /// let dog = QueryExpression.word("dog", minimumConfidence: 0.6)
    /// ```
    public static func word(_ text: String, minimumConfidence: Double? = nil) -> QueryExpression {
        .term(SearchTerm(text, minimumConfidence: minimumConfidence))
    }

    /// Number of terms in the expression.
    var termCount: Int {
        switch self {
        case .term: 1
        case .and(let children), .or(let children): children.reduce(0) { $0 + $1.termCount }
        case .not(let child): child.termCount
        }
    }
}
