import Foundation

/// A token of the search language, with its character offset.
package struct Token: Equatable {
    package enum Kind: Equatable {
        case term(SearchTerm)
        case filter(key: String, value: String)
        case leftParen, rightParen, and, or, not, minus
    }

    let kind: Kind
    let offset: Int
}

/// Splits a query string into tokens. Offsets count Characters.
package struct Lexer {
    static let filterKeys: Set<String> = [
        "under", "type", "ext", "after", "before", "minwidth", "minheight", "minsize", "maxsize", "min", "is",
        "filter", "precision", "recall", "faces", "taken", "modified", "camera", "lens", "near", "place", "country",
        "color", "colour", "person",
    ]

    private let characters: [Character]
    private let query: String
    private var position = 0

    init(_ query: String) {
        self.query = query
        characters = Array(query)
    }

    private func error(_ message: String, at offset: Int) -> QuerySyntaxError {
        QuerySyntaxError(message: message, offset: offset, query: query)
    }

    private static func isDelimiter(_ character: Character) -> Bool {
        character.isWhitespace || character == "(" || character == ")" || character == "\""
    }

    mutating func tokens() throws(QuerySyntaxError) -> [Token] {
        for (offset, character) in characters.enumerated() {
            if character.unicodeScalars.contains(where: { $0.value == 0 }) {
                throw error("NUL characters are not allowed in a query", at: offset)
            }
            if !character.isWhitespace,
                character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                throw error("control characters are not allowed in a query", at: offset)
            }
        }
        var tokens: [Token] = []
        while position < characters.count {
            let character = characters[position]
            if character.unicodeScalars.contains(where: { $0.value == 0 }) {
                throw error("NUL characters are not allowed in a query", at: position)
            }
            if character.isWhitespace {
                position += 1
                continue
            }
            if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) {
                throw error("control characters are not allowed in a query", at: position)
            }
            let start = position
            switch character {
            case "(":
                tokens.append(Token(kind: .leftParen, offset: start))
                position += 1
            case ")":
                tokens.append(Token(kind: .rightParen, offset: start))
                position += 1
            case "\"":
                let text = try quoted()
                tokens.append(Token(kind: .term(try phraseSuffix(text, start: start)), offset: start))
            case "-":
                let next = position + 1 < characters.count ? characters[position + 1] : nil
                guard let next, !next.isWhitespace, next != ")" else {
                    throw error("expected a term after '-'", at: start)
                }
                tokens.append(Token(kind: .minus, offset: start))
                position += 1
            default:
                tokens.append(try word(start: start))
            }
        }
        return tokens
    }

    /// Reads `"..."` starting at the opening quote.
    private mutating func quoted() throws(QuerySyntaxError) -> String {
        let start = position
        position += 1
        var text = ""
        while position < characters.count, characters[position] != "\"" {
            if characters[position].unicodeScalars.contains(where: { $0.value == 0 }) {
                throw error("NUL characters are not allowed in a query", at: position)
            }
            text.append(characters[position])
            position += 1
        }
        guard position < characters.count else { throw error("unterminated quote", at: start) }
        position += 1
        return text
    }

    /// `"phrase"*` or `"phrase":0.6` after a quoted phrase.
    private mutating func phraseSuffix(_ text: String, start: Int) throws(QuerySyntaxError) -> SearchTerm {
        var term = SearchTerm(text, kind: .phrase, offset: start)
        if text.trimmingCharacters(in: .whitespaces).isEmpty { throw error("empty phrase", at: start) }
        if position < characters.count, characters[position] == "*" {
            term.kind = .prefix
            position += 1
        }
        if position < characters.count, characters[position] == ":" {
            let valueStart = position + 1
            position += 1
            var value = ""
            while position < characters.count, !Self.isDelimiter(characters[position]) {
                value.append(characters[position])
                position += 1
            }
            term.minimumConfidence = try confidence(value, at: valueStart)
        }
        return term
    }

    private func confidence(_ text: String, at offset: Int) throws(QuerySyntaxError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw error("expected a confidence between 0 and 1 after ':'", at: offset)
        }
        guard (0...1).contains(value) else { throw error("a confidence must be between 0 and 1", at: offset) }
        return value
    }

    private mutating func word(start: Int) throws(QuerySyntaxError) -> Token {
        var text = ""
        while position < characters.count, !Self.isDelimiter(characters[position]) {
            if characters[position].unicodeScalars.contains(where: { $0.value == 0 }) {
                throw error("NUL characters are not allowed in a query", at: position)
            }
            text.append(characters[position])
            position += 1
        }
        switch text {
        case "AND": return Token(kind: .and, offset: start)
        case "OR": return Token(kind: .or, offset: start)
        case "NOT": return Token(kind: .not, offset: start)
        default: break
        }
        switch text.lowercased() {
        case "untagged", "failed": return Token(kind: .filter(key: "is", value: text.lowercased()), offset: start)
        default: break
        }
        if let colon = text.firstIndex(of: ":") {
            let key = text[..<colon].lowercased()
            var value = String(text[text.index(after: colon)...])
            if Self.filterKeys.contains(key) {
                if value.isEmpty, position < characters.count, characters[position] == "\"" {
                    value = try quoted()
                }
                guard !value.isEmpty else { throw error("expected a value after '\(key):'", at: start) }
                // A person is a term: it combines with AND, OR and NOT like a label.
                if key == "person" { return Token(kind: .term(SearchTerm(value, kind: .person, offset: start)), offset: start) }
                return Token(kind: .filter(key: key, value: value), offset: start)
            }
            if let lastColon = text.lastIndex(of: ":") {
                let number = String(text[text.index(after: lastColon)...])
                let valueOffset = start + text.distance(from: text.startIndex, to: lastColon) + 1
                if let first = number.first, first.isNumber || first == "." {
                    var term = try termText(String(text[..<lastColon]), start: start)
                    term.minimumConfidence = try confidence(number, at: valueOffset)
                    return Token(kind: .term(term), offset: start)
                }
            }
            value = ""
        }
        return Token(kind: .term(try termText(text, start: start)), offset: start)
    }

    private func termText(_ text: String, start: Int) throws(QuerySyntaxError) -> SearchTerm {
        if text.hasSuffix("*") {
            let stem = String(text.dropLast())
            guard !stem.isEmpty, !stem.hasSuffix("*") else { throw error("'*' needs a prefix before it", at: start) }
            return SearchTerm(stem, kind: .prefix, offset: start)
        }
        guard !text.isEmpty else { throw error("expected a term", at: start) }
        return SearchTerm(text, kind: .word, offset: start)
    }
}
