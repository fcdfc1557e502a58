import ClassifySupport

/// Normalization of label names and search terms (see `NameForms`), and the forms a term is
/// looked up by.
package enum TermText {
    /// Lowercase, `_` as space, single spaces.
    package static func normalize(_ text: String) -> String { NameForms.normalized(text) }

    /// Alphanumeric tokens, for FTS5 queries (each is later quoted).
    static func tokens(_ text: String) -> [String] { NameForms.words(text) }

    /// The words of a name without its punctuation (`jack o lantern` for `jack-o'-lantern`).
    static func tokenForm(_ text: String) -> String { NameForms.tokenForm(text) }

    /// The forms a term is looked up by, in order: as typed (normalized), then the singular
    /// candidates of its last word (`beaches` -> `beach`).
    static func lookupForms(_ text: String) -> [String] {
        let normalized = normalize(text)
        return [normalized] + Inflection.singularForms(of: normalized).filter { $0 != normalized }
    }
}
