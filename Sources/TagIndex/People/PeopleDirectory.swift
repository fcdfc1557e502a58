/// The people of the stored grouping as search resolves `person:` terms and plain names against
/// them: read once per search (a few thousand short rows at most).
///
/// - `person:7` is the person with id 7 (unnamed people too);
/// - `person:anna` is the person called Anna, case and accents ignored (`person:zoe` finds Zoé);
///   failing that, the one person whose name starts with the text (`person:ann`), or whose name
///   has a word that does (`person:martin` finds Zoé Martin);
/// - a plain word or quoted phrase that is a person's whole name (`anna`, `"zoé martin"`) finds them;
///   failing that, a single word of people's names (`zoe`, `martin`) finds every person it names.
///
/// Usage: `let ids = try directory.resolve(SearchTerm("anna", kind: .person))`
package struct PeopleDirectory: Sendable {
    /// One stored person.
    package struct Entry: Sendable, Hashable {
        package var id: Int64
        package var name: String?
        package var photoCount: Int

        package init(id: Int64, name: String?, photoCount: Int) {
            self.id = id
            self.name = name
            self.photoCount = photoCount
        }
    }

    package let entries: [Entry]
    /// Each entry's name as ``PeopleNames/key(_:)`` folds it (nil while unnamed), and its words:
    /// folded once when the directory is read, not for every word of every search.
    private let keys: [String?]
    private let keyWords: [[Substring]]

    /// Usage: `PeopleDirectory(entries: [])`
    package init(entries: [Entry]) {
        self.entries = entries
        keys = entries.map { $0.name.map(PeopleNames.key) }
        keyWords = keys.map { $0?.split(separator: " ") ?? [] }
    }

    /// Whether anyone has a name yet. Usage: `guard directory.hasNames else { return nil }`
    package var hasNames: Bool { keys.contains { $0 != nil } }

    /// The directory of listed people. Usage: `PeopleDirectory(people: try await index.people())`
    package init(people: [PersonSummary]) {
        self.init(entries: people.map { Entry(id: $0.id, name: $0.name, photoCount: $0.photoCount) })
    }

    /// The rows ``init(rows:)`` reads: id, name, photo count.
    package static let query = "SELECT id, name, photo_count FROM people"

    /// The people `person:TEXT` names; throws a sentence when none does, or a prefix is ambiguous.
    package func resolve(_ term: SearchTerm) throws -> [Entry] {
        let text = term.text.trimmingCharacters(in: .whitespaces)
        if let id = Int64(text) {
            guard let person = entries.first(where: { $0.id == id }) else {
                throw TagIndexError.invalidInput("no person has the id \(id) (`classify-tool people` lists them)")
            }
            return [person]
        }
        let key = PeopleNames.key(text)
        let named = entries.indices.filter { keys[$0] != nil }
        let exact = named.filter { keys[$0] == key }.map { entries[$0] }
        if !exact.isEmpty { return exact }
        var starting = named.filter { keys[$0]!.hasPrefix(key) }.map { entries[$0] }
        if starting.isEmpty {
            starting = named.filter { keyWords[$0].contains { $0.hasPrefix(key) } }.map { entries[$0] }
        }
        let names = Set(starting.compactMap(\.name)).sorted()
        guard names.count <= 1 else {
            let listed = names.prefix(5).joined(separator: ", ") + (names.count > 5 ? ", ..." : "")
            throw TagIndexError.invalidInput("'person:\(text)' could be \(listed): type more of the name")
        }
        guard !starting.isEmpty else {
            throw TagIndexError.invalidInput(
                named.isEmpty
                    ? "no person is named yet: name one with `classify-tool people name ID NAME` or search person:ID"
                    : "no person is called '\(text)' (`classify-tool people` lists them)")
        }
        return starting
    }

    /// The people whose whole name is `text` (a plain word or phrase), case and accents ignored.
    package func named(_ text: String) -> [Entry] {
        let key = PeopleNames.key(text)
        guard !key.isEmpty else { return [] }
        return entries.indices.filter { keys[$0] == key }.map { entries[$0] }
    }

    /// The people a plain word or phrase calls: those whose whole name it is; failing that, when it
    /// is one word, those with that word in their name (`martin` finds Zoé Martin and Paul Martin).
    /// Case and accents are ignored; a prefix calls no one (`person:mar` is for that).
    ///
    /// Usage: `let called = directory.called("zoe")`
    package func called(_ text: String) -> [Entry] {
        let whole = named(text)
        let key = PeopleNames.key(text)
        guard whole.isEmpty, !key.isEmpty, !key.contains(" ") else { return whole }
        return entries.indices.filter { keyWords[$0].contains { $0 == key } }.map { entries[$0] }
    }

    /// The person a form or argument names exactly: an id, or a whole name (case and accents
    /// ignored); nil when none, and a sentence when several people share the name.
    ///
    /// Usage: `guard let anna = try directory.person("Anna") else { ... }`
    package func person(_ text: String) throws -> Entry? {
        if let id = Int64(text.trimmingCharacters(in: .whitespaces)), let person = entries.first(where: { $0.id == id }) {
            return person
        }
        let people = named(text)
        guard people.count <= 1 else { throw TagIndexError.invalidInput("several people are called '\(text)'; give their id") }
        return people.first
    }
}
