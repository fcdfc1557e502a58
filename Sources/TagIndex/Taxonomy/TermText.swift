/// Normalization of label names and search terms: case-insensitive, `_` and
/// spaces equivalent, runs of whitespace collapsed.
enum TermText {
    static func normalize(_ text: String) -> String {
        text.lowercased()
            .replacingOccurrences(of: "_", with: " ")
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    /// Alphanumeric tokens, for FTS5 queries (each is later quoted).
    static func tokens(_ text: String) -> [String] {
        normalize(text)
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map(String.init)
    }
}
