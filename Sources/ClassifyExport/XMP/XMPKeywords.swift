import TagIndex

/// The keywords an export writes for one image: flat names for `dc:subject` and `|`-separated
/// paths for `lr:hierarchicalSubject`.
///
/// ```swift
/// let keywords = XMPKeywords(record: record)   // ["golden retriever"], ["animal|...|golden retriever"]
/// ```
public struct XMPKeywords: Sendable, Hashable {
    /// Flat keywords (`dc:subject`), each once, in order.
    public var subjects: [String]
    /// Keyword paths from the top of the taxonomy (`lr:hierarchicalSubject`), each once, in order.
    public var hierarchicalSubjects: [String]

    /// Creates keywords.
    ///
    /// ```swift
    /// XMPKeywords(subjects: ["dog"], hierarchicalSubjects: ["animal|dog"])
    /// ```
    public init(subjects: [String], hierarchicalSubjects: [String]) {
        self.subjects = Self.unique(subjects)
        self.hierarchicalSubjects = Self.unique(hierarchicalSubjects)
    }

    /// The kept labels of a record: each label's name, and each of its routes down the taxonomy.
    ///
    /// ```swift
    /// let keywords = XMPKeywords(record: record)
    /// ```
    public init(record: ExportRecord) {
        self.init(
            subjects: record.labels.map(\.displayName),
            hierarchicalSubjects: record.labels.flatMap { label in
                // '|' separates levels; a name holding one would split into two (user labels cannot).
                label.hierarchy.map { route in route.map { $0.replacingOccurrences(of: "|", with: "/") }.joined(separator: "|") }
            })
    }

    /// The non-empty values, each once, in order.
    static func unique(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.filter { !$0.isEmpty && seen.insert($0).inserted }
    }
}
