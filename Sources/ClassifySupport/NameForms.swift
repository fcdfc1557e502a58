/// How label names, vocabulary words and search terms are compared: case-insensitive, `_` and
/// spaces equivalent, runs of whitespace collapsed; and, as a second form, the alphanumeric words
/// only, so `jack-o-lantern` and `red breasted merganser` match `jack-o'-lantern` and
/// `red-breasted merganser`.
///
/// ```swift
/// NameForms.normalized("Golden_Retriever")    // "golden retriever"
/// NameForms.tokenForm("jack-o'-lantern")      // "jack o lantern"
/// ```
public enum NameForms {
    /// Lowercase, `_` as space, single spaces, no space at either end.
    ///
    /// ```swift
    /// let key = NameForms.normalized("  Hot_Dog ")   // "hot dog"
    /// ```
    public static func normalized(_ text: String) -> String {
        text.lowercased()
            .replacingOccurrences(of: "_", with: " ")
            .split(whereSeparator: { $0.isWhitespace })
            .joined(separator: " ")
    }

    /// The letters-and-digits words of `text`, lowercase.
    ///
    /// ```swift
    /// let words = NameForms.words("St. Bernard")    // ["st", "bernard"]
    /// ```
    public static func words(_ text: String) -> [String] {
        normalized(text)
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map(String.init)
    }

    /// The words of `text` joined by single spaces.
    ///
    /// ```swift
    /// let form = NameForms.tokenForm("jack-o'-lantern")   // "jack o lantern"
    /// ```
    public static func tokenForm(_ text: String) -> String {
        words(text).joined(separator: " ")
    }
}
