/// A query string that could not be parsed, with the offending position.
///
/// `description` shows the message, then the query and a caret under the
/// position (a window around it for long queries).
///
/// ```swift
/// do { _ = try Query(parsing: "dog AND (cat") } catch let error as QuerySyntaxError {
///     print(error)   // expected ')' to close '(' at offset 8 ...
/// }
/// ```
public struct QuerySyntaxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ')'`.
    public var message: String
    /// Character offset of the problem in `query`.
    public var offset: Int
    /// The query string.
    public var query: String

    /// Creates an error.
    ///
    /// ```swift
    /// QuerySyntaxError(message: "unexpected ')'", offset: 3, query: "dog)")
    /// ```
    public init(message: String, offset: Int, query: String) {
        self.message = message
        self.offset = offset
        self.query = query
    }

    /// The query (or a window of it) and a caret line pointing at `offset`.
    ///
    /// ```swift
    /// print(error.caretLines)
    /// ```
    public var caretLines: String {
        let characters = Array(query)
        let window = 60
        let start = max(0, min(offset - window / 2, characters.count - window))
        let end = min(characters.count, start + window)
        let shown = characters[start..<end].map { character -> Character in
            character.unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } ? "·" : character
        }
        let prefix = start > 0 ? "…" : ""
        let suffix = end < characters.count ? "…" : ""
        let caret = String(repeating: " ", count: prefix.count + offset - start) + "^"
        return "  " + prefix + String(shown) + suffix + "\n  " + caret
    }

    /// The message, offset and caret lines.
    ///
    /// ```swift
    /// print(error.description)
    /// ```
    public var description: String { "\(message) at offset \(offset)\n\(caretLines)" }
}
