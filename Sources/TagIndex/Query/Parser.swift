import Foundation

/// Recursive-descent parser of the search language.
///
/// ```
/// query   := or EOF
/// or      := and ('OR' and)*
/// and     := unary (['AND'] unary)*
/// unary   := ('NOT' | '-') unary | primary
/// primary := '(' or ')' | term | filter
/// ```
/// Filters are only allowed at the top level, outside OR, NOT and parentheses.
package struct Parser {
    /// Deeper nesting is refused rather than risking the stack.
    static let maximumDepth = 64
    /// More terms are refused: SQLite caps compound selects and expression depth.
    static let maximumTerms = 100
    /// More filters, folders or file types are refused: each becomes a condition of one SQL
    /// expression, and SQLite caps an expression's depth.
    static let maximumFilters = ImageFilters.maximumFolderOrTypeCount

    private let text: String
    private var tokens: [Token] = []
    private var index = 0

    private let places: (any PlaceNameResolver)?
    private let today: String?

    init(_ text: String, places: (any PlaceNameResolver)? = nil, today: String? = nil) {
        self.text = text
        self.places = places
        self.today = today
    }

    private enum Item {
        case expression(QueryExpression)
        case filter(key: String, value: String, offset: Int)
    }

    private func error(_ message: String, at offset: Int) -> QuerySyntaxError {
        QuerySyntaxError(message: message, offset: offset, query: text)
    }

    private var endOffset: Int { text.count }
    private var current: Token? { index < tokens.count ? tokens[index] : nil }

    mutating func parse() throws(QuerySyntaxError) -> Query {
        var lexer = Lexer(text)
        tokens = try lexer.tokens()
        var query = Query()
        if let today { query.today = today }
        guard !tokens.isEmpty else { return query }
        let (expression, filters) = try parseOr(depth: 0)
        if let token = current {
            throw error(token.kind == .rightParen ? "unexpected ')'" : "unexpected token", at: token.offset)
        }
        if let expression {
            var termOffsets: [Int] = []
            Self.collectOffsets(expression, into: &termOffsets)
            if termOffsets.count > Self.maximumTerms {
                throw error("too many terms (at most \(Self.maximumTerms))", at: termOffsets[Self.maximumTerms])
            }
        }
        query.expression = expression
        if filters.count > Self.maximumFilters, case .filter(_, _, let offset) = filters[Self.maximumFilters] {
            throw error("too many filters (at most \(Self.maximumFilters))", at: offset)
        }
        for filter in filters { try apply(filter, to: &query) }
        if let places, let expression { query.placeWords = Self.placeWords(expression, places) }
        return query
    }

    /// What the top level's plain words, alone and in runs, name as places (`new york`).
    private static func placeWords(_ expression: QueryExpression, _ places: any PlaceNameResolver) -> [String: PlaceWord] {
        let children: [QueryExpression] = if case .and(let children) = expression { children } else { [expression] }
        var found: [String: PlaceWord] = [:]
        for start in children.indices {
            var words: [String] = []
            for child in children[start...].prefix(PlainWordReading.maximumPlaceWords) {
                guard case .term(let term) = child, term.kind == .word, term.minimumConfidence == nil else { break }
                words.append(term.text.lowercased())
                let text = words.joined(separator: " ")
                if words.count == 1, PlainWords.smallWords.contains(text) || PlainWords.year(text) != nil || PlainWords.month(text) != nil { break }
                if found[text] == nil, let place = places.place(forWord: text) { found[text] = place }
            }
        }
        return found
    }

    private static func collectOffsets(_ expression: QueryExpression, into offsets: inout [Int]) {
        switch expression {
        case .term(let term): offsets.append(term.offset ?? 0)
        case .and(let children), .or(let children): for child in children { collectOffsets(child, into: &offsets) }
        case .not(let child): collectOffsets(child, into: &offsets)
        }
    }

    private mutating func parseOr(depth: Int) throws(QuerySyntaxError) -> (QueryExpression?, [Item]) {
        var branches = [try parseAnd(depth: depth)]
        while let token = current, token.kind == .or {
            index += 1
            guard let next = current, next.kind != .rightParen, next.kind != .or, next.kind != .and else {
                throw error("expected a term after 'OR'", at: current?.offset ?? endOffset)
            }
            branches.append(try parseAnd(depth: depth))
        }
        if branches.count == 1 { return branches[0] }
        var expressions: [QueryExpression] = []
        for (expression, filters) in branches {
            if case .filter(let key, _, let offset) = filters.first {
                throw error("the filter '\(key):' applies to the whole query and cannot be inside OR", at: offset)
            }
            if let expression { expressions.append(expression) }
        }
        return (.or(expressions), [])
    }

    private mutating func parseAnd(depth: Int) throws(QuerySyntaxError) -> (QueryExpression?, [Item]) {
        var expressions: [QueryExpression] = []
        var filters: [Item] = []
        while let token = current, token.kind != .rightParen, token.kind != .or {
            if token.kind == .and {
                guard !expressions.isEmpty || !filters.isEmpty else {
                    throw error("expected a term before 'AND'", at: token.offset)
                }
                index += 1
                guard let next = current, next.kind != .rightParen, next.kind != .or, next.kind != .and else {
                    throw error("expected a term after 'AND'", at: current?.offset ?? endOffset)
                }
                continue
            }
            switch try parseUnary(depth: depth) {
            case .expression(let expression): expressions.append(expression)
            case .filter(let key, let value, let offset):
                guard depth == 0 else {
                    throw error(
                        "the filter '\(key):' applies to the whole query and cannot be inside parentheses",
                        at: offset)
                }
                filters.append(.filter(key: key, value: value, offset: offset))
            }
        }
        if expressions.isEmpty && filters.isEmpty {
            if let token = current, token.kind == .or { throw error("expected a term before 'OR'", at: token.offset) }
            throw error("expected a term", at: current?.offset ?? endOffset)
        }
        let expression: QueryExpression? =
            switch expressions.count {
            case 0: nil
            case 1: expressions[0]
            default: .and(expressions)
            }
        return (expression, filters)
    }

    private mutating func parseUnary(depth: Int) throws(QuerySyntaxError) -> Item {
        guard let token = current else { throw error("expected a term", at: endOffset) }
        if token.kind == .not || token.kind == .minus {
            index += 1
            guard depth + 1 <= Self.maximumDepth else { throw error("the query is nested too deeply", at: token.offset) }
            guard current != nil else { throw error("expected a term after '\(token.kind == .not ? "NOT" : "-")'", at: endOffset) }
            switch try parseUnary(depth: depth + 1) {
            case .expression(let operand): return .expression(.not(operand))
            case .filter(let key, _, let offset): throw error("the filter '\(key):' cannot be negated", at: offset)
            }
        }
        return try parsePrimary(depth: depth)
    }

    private mutating func parsePrimary(depth: Int) throws(QuerySyntaxError) -> Item {
        guard let token = current else { throw error("expected a term", at: endOffset) }
        switch token.kind {
        case .leftParen:
            guard depth + 1 <= Self.maximumDepth else {
                throw error("parentheses are nested too deeply (at most \(Self.maximumDepth))", at: token.offset)
            }
            index += 1
            if let next = current, next.kind == .rightParen { throw error("empty parentheses", at: token.offset) }
            let (expression, _) = try parseOr(depth: depth + 1)
            guard let closing = current, closing.kind == .rightParen else {
                throw error("unclosed '(' (opened at offset \(token.offset)): expected ')'", at: current?.offset ?? endOffset)
            }
            index += 1
            guard let expression else { throw error("empty parentheses", at: token.offset) }
            return .expression(expression)
        case .term(let term):
            index += 1
            return .expression(.term(term))
        case .filter(let key, let value):
            index += 1
            return .filter(key: key, value: value, offset: token.offset)
        case .rightParen:
            throw error("unexpected ')'", at: token.offset)
        case .and, .or:
            throw error("expected a term before '\(token.kind == .and ? "AND" : "OR")'", at: token.offset)
        case .not, .minus:
            throw error("expected a term", at: token.offset)
        }
    }

    private func apply(_ item: Item, to query: inout Query) throws(QuerySyntaxError) {
        guard case .filter(let key, let value, let offset) = item else { return }
        switch key {
        case "under":
            query.filters.folders.append(IndexRun.normalizedRoot(value))
        case "type", "ext":
            let types = value.split(separator: ",").map {
                String($0.drop(while: { $0 == "." })).lowercased()
            }.filter { !$0.isEmpty }
            guard !types.isEmpty else { throw error("expected file types like 'type:jpg,png'", at: offset) }
            for type in types where !query.filters.fileTypes.contains(type) { query.filters.fileTypes.append(type) }
            guard query.filters.fileTypes.count <= Self.maximumFilters else {
                throw error("too many file types (at most \(Self.maximumFilters))", at: offset)
            }
        case "after", "before":
            guard let start = LocalTimeRange.period(value)?.start ?? RelativeDays.range(value, today: query.today)?.lower else {
                throw error("expected a date like 2023, 2023-01 or 2023-01-31 (or 2023-01-31T12:00), or last-month, after '\(key):'", at: offset)
            }
            let range = key == "after" ? LocalTimeRange(lower: start, upper: nil) : LocalTimeRange(lower: nil, upper: start)
            query.filters.taken = query.filters.taken.map { $0.intersected(with: range) } ?? range
        case "taken", "modified":
            guard let range = LocalTimeRange(parsing: value) ?? RelativeDays.range(value, today: query.today) else {
                throw error("expected a date like 2019, 2019-06 or 2019-06-14, a range like 2019-06..2019-08, one like >=2020, or yesterday, last-week, this-year after '\(key):'", at: offset)
            }
            if key == "taken" {
                query.filters.taken = query.filters.taken.map { $0.intersected(with: range) } ?? range
            } else {
                if let lower = range.lower.flatMap({ LocalTimeRange.instant($0, in: .current) }) {
                    query.filters.modifiedAfter = max(query.filters.modifiedAfter ?? lower, lower)
                }
                if let upper = range.upper.flatMap({ LocalTimeRange.instant($0, in: .current) }) {
                    query.filters.modifiedBefore = min(query.filters.modifiedBefore ?? upper, upper)
                }
            }
        case "camera", "lens":
            let text = value.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { throw error("expected a camera or lens name after '\(key):'", at: offset) }
            if key == "camera" { query.filters.camera = text } else { query.filters.lens = text }
        case "place":
            let name = value.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { throw error("expected a place name after 'place:'", at: offset) }
            guard let places else {
                throw error("place names need the places file (Models/places/places.bin); search by position with near:LAT,LON", at: offset)
            }
            let matches = places.matches(forPlaceNamed: name)
            guard !matches.isEmpty else { throw error("no town, US state or country is called '\(name)'", at: offset) }
            query.filters.places.append(matches)
        case "country":
            let name = value.trimmingCharacters(in: .whitespaces)
            if let code = places?.countryCode(named: name) {
                query.filters.places.append([.country(code)])
            } else if places == nil, name.count == 2, name.allSatisfy({ $0.isASCII && $0.isLetter }) {
                query.filters.places.append([.country(name.uppercased())])
            } else {
                throw error("expected a country name or code like 'country:italy' or 'country:it' after 'country:'", at: offset)
            }
        case "color", "colour":
            guard let color = PlainWords.color(value) else {
                throw error("expected a color name like 'color:red' or a hex color like 'color:D32F2F' after '\(key):'", at: offset)
            }
            query.color = color
        case "near":
            guard let area = NearbyArea(parsing: value) else {
                throw error("expected a position like 48.85,2.35 or 48.85,2.35,10km after 'near:'", at: offset)
            }
            query.filters.near = area
        case "minwidth", "minheight":
            guard let number = Int(value), number >= 0 else {
                throw error("expected a number of pixels after '\(key):'", at: offset)
            }
            if key == "minwidth" { query.filters.minimumWidth = number } else { query.filters.minimumHeight = number }
        case "minsize", "maxsize":
            guard let bytes = FilterValue.bytes(value) else {
                throw error("expected a size like 500KB or 2MB after '\(key):'", at: offset)
            }
            if key == "minsize" { query.filters.minimumBytes = bytes } else { query.filters.maximumBytes = bytes }
        case "faces":
            let atLeast = value.hasSuffix("+")
            guard let number = Int(atLeast ? String(value.dropLast()) : value), number >= 0, number <= 10_000 else {
                throw error("expected a number of faces like 'faces:2' or 'faces:2+' after 'faces:'", at: offset)
            }
            query.filters.faceCount = number...(atLeast ? Int.max : number)
        case "min":
            guard let number = Double(value), (0...1).contains(number) else {
                throw error("expected a confidence between 0 and 1 after 'min:'", at: offset)
            }
            query.minimumConfidence = number
        case "filter":
            switch value.lowercased() {
            case "high-precision": query.calibration = .highPrecision
            case "high-recall": query.calibration = .highRecall
            default: throw error("expected 'filter:high-precision' or 'filter:high-recall'", at: offset)
            }
        case "precision", "recall":
            guard let number = Double(value), (0...1).contains(number) else {
                throw error("expected a value between 0 and 1 after '\(key):'", at: offset)
            }
            query.calibration = key == "precision" ? .precision(number) : .recall(number)
        case "is":
            switch value.lowercased() {
            case "untagged": query.filters.status = .untagged
            case "failed": query.filters.status = .failed
            default: throw error("expected 'is:untagged' or 'is:failed'", at: offset)
            }
        default:
            throw error("unknown filter '\(key):'", at: offset)
        }
    }
}
