import Foundation

/// Free text over label names in memory, with the semantics of the SQLite index's FTS5 table
/// `label_text` (tokenizer `unicode61 remove_diacritics 2 separators '_'`): a token is a run of
/// letters and digits, case-folded and without diacritics; a term matches a label when every one
/// of its words is a token of the label's identifier, display name or synonyms, a phrase when its
/// words follow each other in one of them, and a prefix term (`retriev*`, `"golden retr"*`) when
/// its words follow each other there and the last one starts a token.
/// Backends without FTS5 (PostgreSQL) resolve free-text terms with it.
///
/// Usage: `let ids = LabelTextIndex(taxonomy).matches(["golden"], kind: .word)`
package struct LabelTextIndex: Sendable {
    /// Per label, the tokens of each column (identifier, display name, synonyms).
    let columns: [Int64: [[String]]]

    package init(_ taxonomy: TaxonomySnapshot) {
        var columns: [Int64: [[String]]] = [:]
        for (id, label) in taxonomy.labels {
            columns[id] = [Self.tokens(label.identifier), Self.tokens(label.displayName), Self.tokens(label.synonyms.joined(separator: "\",\""))]
        }
        self.columns = columns
    }

    /// FTS5's unicode61 tokens of `text`.
    static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        func flush() {
            if !current.isEmpty {
                tokens.append(String(current).folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil))
                current.removeAll()
            }
        }
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter,
                .decimalNumber, .letterNumber, .otherNumber, .privateUse:
                current.append(scalar)
            case .nonspacingMark, .spacingMark:
                // Combining diacritics belong to the token (and are folded away with it).
                current.append(scalar)
            case .enclosingMark where !current.isEmpty:
                current.append(scalar)
            default:
                flush()
            }
        }
        flush()
        return tokens
    }

    /// Labels matching `words` as a term of `kind`.
    func matches(_ words: [String], kind: SearchTerm.Kind) -> Set<Int64> {
        // Each quoted word of the FTS5 query is a phrase of its own tokens; a phrase or prefix term
        // is one phrase (a prefix term's last token a prefix).
        let phrases: [[String]] =
            switch kind {
            case .phrase, .prefix: [words.flatMap(Self.tokens)]
            case .word, .person: words.map(Self.tokens)
            }
        guard !phrases.isEmpty, phrases.allSatisfy({ !$0.isEmpty }) else { return [] }
        var found: Set<Int64> = []
        for (id, labelColumns) in columns {
            let all = phrases.enumerated().allSatisfy { index, phrase in
                let prefix = kind == .prefix && index == phrases.count - 1
                return labelColumns.contains { Self.contains($0, phrase, lastIsPrefix: prefix) }
            }
            if all { found.insert(id) }
        }
        return found
    }

    /// Whether `phrase` occurs as consecutive tokens of `column` (its last token only as a
    /// prefix of one there when `lastIsPrefix`).
    static func contains(_ column: [String], _ phrase: [String], lastIsPrefix: Bool) -> Bool {
        guard column.count >= phrase.count else { return false }
        for start in 0...(column.count - phrase.count) {
            var matched = true
            for (offset, word) in phrase.enumerated() {
                let token = column[start + offset]
                let last = offset == phrase.count - 1
                if !(token == word || (last && lastIsPrefix && token.hasPrefix(word))) {
                    matched = false
                    break
                }
            }
            if matched { return true }
        }
        return false
    }
}
