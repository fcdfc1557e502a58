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
        // Nearly every name is ASCII: its bytes are rewritten directly, which is much faster than
        // Unicode case mapping and grapheme breaking (a model load normalizes ~20,000 names).
        asciiForm(text, keepingPunctuation: true) ?? unicodeNormalized(text)
    }

    /// ``normalized(_:)`` for any text, by Unicode case mapping and whitespace.
    static func unicodeNormalized(_ text: String) -> String {
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
        asciiForm(text, keepingPunctuation: false) ?? unicodeTokenForm(text)
    }

    /// ``tokenForm(_:)`` for any text, by Unicode letter and digit properties.
    static func unicodeTokenForm(_ text: String) -> String {
        unicodeNormalized(text)
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .joined(separator: " ")
    }

    /// ``normalized(_:)`` (or, without punctuation, ``tokenForm(_:)``) of an all-ASCII `text`,
    /// byte by byte; nil when `text` has other characters. ASCII whitespace (space, tab, line
    /// feed, vertical tab, form feed, carriage return) and `_` separate words; without
    /// punctuation, so does every byte that is not a letter or digit.
    static func asciiForm(_ text: String, keepingPunctuation: Bool) -> String? {
        var text = text
        return text.withUTF8 { bytes -> String? in
            var output = [UInt8]()
            output.reserveCapacity(bytes.count)
            var pendingSpace = false
            for byte in bytes {
                guard byte < 0x80 else { return nil }
                let lower = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                let isSeparator = keepingPunctuation
                    ? lower == 0x20 || lower == 0x5F || (0x09...0x0D).contains(lower)
                    : !((0x61...0x7A).contains(lower) || (0x30...0x39).contains(lower))
                if isSeparator {
                    pendingSpace = !output.isEmpty
                    continue
                }
                if pendingSpace {
                    output.append(0x20)
                    pendingSpace = false
                }
                output.append(lower)
            }
            return String(decoding: output, as: UTF8.self)
        }
    }
}
