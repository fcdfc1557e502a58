/// Reads the plain words of a search (`anna beach 2019 italy`, `red car`, `dog on the beach`) the
/// way a person means them, against the index's labels. Each word at the top level of the query,
/// outside quotes and without a confidence, is in this order:
/// 1. part of the longest run of words that names a label or vocabulary word (`hot dog`), unless a
///    longer run names a place (`new york`); a color word the classifier cannot see is the color;
/// 2. a small word (`on`, `the`): skipped;
/// 3. a year or date (`2019`, `2019-06`): the date taken, unless free text finds it in label
///    names (`X-ray tube 2000`); days named from today (`yesterday`, `last year`: ``RelativeDays``)
///    likewise; a month name (`june`): that month of any year, or of the year the search names;
/// 4. a person named in the index: a run of words that is someone's whole name (`zoé martin`), or
///    one word of people's names (`anna`, `martin`), unless a longer run names a place; the
///    names people gave beat the gazetteer's thousands of small towns (`anna` is also a town);
/// 5. a color name (`red`): the search ranks by that color;
/// 6. a place (`paris`, `italy`, `new york`); a small town loses to labels found by free text;
/// 7. otherwise a term as before: free text over label names, then "did you mean".
///
/// A word that means two things (`orange`: the fruit and the color; `jersey`: the shirt and the
/// island; `anna`: a person and a town) keeps the first and the search's notes say how to ask for
/// the other. Quoted words, and words inside OR, NOT or parentheses, are labels or people's names
/// only. A search left with nothing to score (`paris 2019`) lists the newest taken first.
///
/// Usage: `let (query, notes) = try PlainWordReading(resolver).read(query)`
package struct PlainWordReading {
    /// The most words a place name spans (`santa cruz de tenerife`).
    package static let maximumPlaceWords = 4
    /// The most words of a person's name read as one (`anna maria de souza`).
    package static let maximumNameWords = 4

    let resolver: TermResolver

    /// Usage: `PlainWordReading(TermResolver(lookup: lookup, taxonomy: taxonomy))`
    package init(_ resolver: TermResolver) {
        self.resolver = resolver
    }

    /// `query` with its plain words that name dates, months, colors and places turned into
    /// filters and its small words dropped, and the notes to show about words that mean two things.
    package func read(_ query: Query) throws -> (query: Query, notes: [String]) {
        let children: [QueryExpression]
        switch query.expression {
        case .and(let list): children = list
        case .term(let term) where term.kind == .word: children = [.term(term)]
        default: return (query, [])
        }
        var read = query
        var kept: [QueryExpression] = []
        var notes: [String] = []
        var dated: (word: String, range: LocalTimeRange)?
        var smallWords: [String] = []
        var index = 0
        while index < children.count {
            guard case .term(let term) = children[index], term.kind == .word else {
                kept.append(children[index])
                index += 1
                continue
            }
            let name = WordJoining.longestName(children, at: index, taxonomy: resolver.taxonomy)
            let place = longestPlace(children, at: index, query.placeWords)
            if let days = relativeDays(children, at: index, today: query.today), days.length > name?.length ?? 0 {
                try take(days.range, named: days.text, dated: &dated, into: &read)
                index += days.length
                continue
            }
            let person = try longestPerson(children, at: index)
            if let place, place.length > max(1, name?.length ?? 0), place.length > person?.length ?? 0 {
                read.filters.places.append(place.word.matches)
                index += place.length
                continue
            }
            if let person, person.length > max(1, name?.length ?? 0) {
                // One term of the whole name, which finds the person (see MatchPlanner).
                var whole = term
                whole.text = person.text
                kept.append(.term(whole))
                index += person.length
                continue
            }
            if let name {
                index += name.length
                let text = name.term.text.lowercased()
                let entry = resolver.taxonomy.entry(named: text)
                if name.length == 1, entry?.word?.definition.unsupportedExplanation != nil, let color = PlainWords.colors[text] {
                    try setColor(color, word: text, of: &read)
                    continue
                }
                kept.append(.term(name.term))
                if name.term.minimumConfidence != nil { continue }
                var others: [String] = []
                if let place, place.length == name.length, place.word.isProminent {
                    others.append("for photos taken in \(place.word.name), write place:\(Self.written(text))")
                }
                if name.length == 1, PlainWords.colors[text] != nil { others.append("to rank by the color, write color:\(text)") }
                if !others.isEmpty { notes.append("'\(text)' is searched as a label; " + others.joined(separator: "; ") + ".") }
                continue
            }
            index += 1
            let word = term.text.lowercased()
            guard term.minimumConfidence == nil else {
                kept.append(.term(term))
                continue
            }
            let date = PlainWords.dates(word), month = PlainWords.month(word)
            if date != nil, (try? resolver.resolve(term)) != nil {
                // Free text in a label's name (`X-ray tube 2000`) keeps the number a label.
                kept.append(.term(term))
                notes.append("'\(word)' is searched as a label; for photos taken in \(word), write taken:\(word).")
                continue
            }
            if PlainWords.smallWords.contains(word) {
                smallWords.append(word)
                if person != nil { notes.append("'\(word)' is skipped as a small word; for the person, write person:\(word).") }
            } else if let range = date {
                try take(range, named: word, dated: &dated, into: &read)
            } else if let month {
                read.filters.takenMonths.insert(month)
                if person != nil { notes.append("'\(word)' is searched as the month; for the person, write person:\(word).") }
            } else if person != nil {
                kept.append(.term(term))
                var others: [String] = []
                if PlainWords.colors[word] != nil { others.append("to rank by the color, write color:\(word)") }
                if let place { others.append("for photos taken in \(place.word.name), write place:\(Self.written(word))") }
                if !others.isEmpty { notes.append("'\(word)' is searched as a person; " + others.joined(separator: "; ") + ".") }
            } else if let color = PlainWords.colors[word] {
                try setColor(color, word: word, of: &read)
            } else if let place {
                let labels = try? resolver.resolve(term)
                if labels != nil && !place.word.isProminent {
                    kept.append(.term(term))
                    notes.append("'\(word)' is searched as a label; for photos taken in \(place.word.name), write place:\(Self.written(word)).")
                } else {
                    read.filters.places.append(place.word.matches)
                    if labels != nil {
                        notes.append("'\(word)' is searched as a place (\(place.word.name)); for the labels it names, write \"\(word)\".")
                    } else if !place.word.isProminent {
                        // A small town is easy to name by accident (a first name, a typo: `doge`):
                        // say which it is, and which labels the word is close to.
                        let close = (try? Suggestions.closest(
                            to: term.text, in: resolver.taxonomy, imageCounts: resolver.lookup.allImageCounts())) ?? []
                        notes.append("'\(word)' is searched as a place (\(place.word.name))" + (close.isEmpty ? "." : "; for a label, did you mean "
                            + close.map { "'\($0)'" }.joined(separator: ", ") + "?"))
                    }
                }
            } else {
                kept.append(.term(term))
            }
        }
        if kept.isEmpty, !smallWords.isEmpty, smallWords.count == children.count {
            throw TagIndexError.invalidInput(
                "'\(smallWords.joined(separator: " "))' has only words a search skips (like 'the', 'in', 'photos'); name something in the photos, a year, a place or a color")
        }
        read.expression = switch kept.count {
        case 0: nil
        case 1: kept[0]
        default: .and(kept)
        }
        // Nothing left to score (`paris 2019`): newest taken first rather than all at score 0.
        if read.expression == nil, read.sort == .confidence, read.color == nil { read.sort = .taken }
        return (read, notes)
    }

    /// The span of days the plain words from `index` name from `today` (`yesterday`, `last year`),
    /// the words as typed and how many they are.
    private func relativeDays(
        _ children: [QueryExpression], at index: Int, today: String
    ) -> (range: LocalTimeRange, text: String, length: Int)? {
        var words: [String] = []
        var found: (LocalTimeRange, String, Int)?
        for child in children[index...].prefix(RelativeDays.maximumWords) {
            guard case .term(let term) = child, term.kind == .word, term.minimumConfidence == nil else { break }
            words.append(term.text.lowercased())
            let text = words.joined(separator: " ")
            if let range = RelativeDays.range(text, today: today) { found = (range, text, words.count) }
        }
        return found
    }

    /// Makes `range` the search's date taken; a second, different date is an error.
    private func take(
        _ range: LocalTimeRange, named word: String, dated: inout (word: String, range: LocalTimeRange)?, into query: inout Query
    ) throws {
        if let first = dated, first.range != range {
            let span = PlainWords.dates(first.word) != nil && PlainWords.dates(word) != nil
                ? "; for a span write taken:\(first.word)..\(word)" : ""
            throw TagIndexError.invalidInput("a search names one year or date ('\(first.word)' and '\(word)')\(span)")
        }
        dated = (word, range)
        query.filters.taken = query.filters.taken.map { $0.intersected(with: range) } ?? range
    }

    /// The longest run of plain words from `index` that is a named person's whole name, or the one
    /// word there when it is a word of people's names; the people are read only when asked.
    private func longestPerson(_ children: [QueryExpression], at index: Int) throws -> (text: String, length: Int)? {
        let people = try resolver.lookup.people()
        guard people.hasNames else { return nil }
        var words: [String] = []
        var best: (String, Int)?
        for child in children[index...].prefix(Self.maximumNameWords) {
            guard case .term(let term) = child, term.kind == .word, term.minimumConfidence == nil else { break }
            words.append(term.text)
            let text = words.joined(separator: " ")
            if !(words.count == 1 ? people.called(text) : people.named(text)).isEmpty { best = (text, words.count) }
        }
        return best
    }

    /// The longest run of plain words from `index` that names a place, and how many words it took.
    private func longestPlace(
        _ children: [QueryExpression], at index: Int, _ places: [String: PlaceWord]
    ) -> (word: PlaceWord, length: Int)? {
        guard !places.isEmpty else { return nil }
        var words: [String] = []
        var best: (PlaceWord, Int)?
        for child in children[index...].prefix(Self.maximumPlaceWords) {
            guard case .term(let term) = child, term.kind == .word, term.minimumConfidence == nil else { break }
            words.append(term.text.lowercased())
            if let place = places[words.joined(separator: " ")] { best = (place, words.count) }
        }
        return best
    }

    private func setColor(_ color: IndexedColor, word: String, of query: inout Query) throws {
        if let existing = query.color, existing != color {
            throw TagIndexError.invalidInput("a search ranks by one color; '\(word)' is a second one")
        }
        query.color = color
    }

    /// How a place name is typed after `place:` (spaces as `-`).
    private static func written(_ name: String) -> String {
        name.replacingOccurrences(of: " ", with: "-")
    }
}
