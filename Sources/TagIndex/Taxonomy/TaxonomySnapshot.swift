import Foundation
import GRDB

/// An immutable in-memory copy of the taxonomy and its search vocabulary, reloaded when its
/// generation (`meta.taxonomy_generation`) changes.
package final class TaxonomySnapshot: Sendable {
    package struct Label: Sendable {
        package let id: Int64
        package let identifier: String
        package let displayName: String
        package let synonyms: [String]
    }

    /// A vocabulary word with its labels' ids.
    package struct Word: Sendable {
        let definition: VocabularyWord
        let labelIDs: [Int64]
    }

    /// What a name stands for: the labels it names and the vocabulary word it is, either or both.
    package struct NameEntry {
        let form: String
        let namedLabels: [Int64]
        let word: Word?
    }

    package let generation: Int64
    package let labels: [Int64: Label]
    package let idByIdentifier: [String: Int64]
    /// Normalized identifier, display name or synonym, and its token form
    /// (see `TermText.tokenForm`) -> label ids.
    let idsByName: [String: [Int64]]
    /// Vocabulary words by normalized word and token form.
    let words: [String: Word]
    /// The most words in any name or vocabulary word, for joining adjacent search words.
    let maximumNameWords: Int
    let parents: [Int64: [Int64]]
    let children: [Int64: [Int64]]
    let curves: [Int64: [CurvePoint]]
    /// Label and all labels above it.
    let ancestorsOrSelf: [Int64: [Int64]]

    /// The stored rows a snapshot is built from, read from either backend.
    package struct Rows {
        package var generation: Int64 = 0
        /// (id, identifier, display name, synonyms as JSON)
        package var labels: [(Int64, String, String, String)] = []
        /// The `vocabulary` meta value (JSON), when stored.
        package var vocabularyJSON: String?
        /// (label, parent)
        package var parents: [(Int64, Int64)] = []
        /// (curve id, packed points)
        package var curves: [(Int64, [UInt8])] = []
        /// (label, curve id)
        package var labelCurves: [(Int64, Int64)] = []

        /// Memberwise, for the backends of this package.
        package init(generation: Int64 = 0, labels: [(Int64, String, String, String)] = [], vocabularyJSON: String? = nil, parents: [(Int64, Int64)] = [], curves: [(Int64, [UInt8])] = [], labelCurves: [(Int64, Int64)] = []) {
            self.generation = generation
            self.labels = labels
            self.vocabularyJSON = vocabularyJSON
            self.parents = parents
            self.curves = curves
            self.labelCurves = labelCurves
        }
    }

    static func load(_ db: Database) throws -> TaxonomySnapshot {
        var rows = Rows()
        rows.generation = try generation(db)
        let labelRows = try Row.fetchCursor(db, sql: "SELECT id, identifier, display_name, synonyms FROM labels")
        while let row = try labelRows.next() { rows.labels.append((row[0], row[1], row[2], row[3])) }
        rows.vocabularyJSON = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'vocabulary'")
        rows.parents = try Row.fetchAll(db, sql: "SELECT label_id, parent_id FROM label_parents").map { ($0[0], $0[1]) }
        rows.curves = try Row.fetchAll(db, sql: "SELECT id, points FROM curves").map { ($0[0], Array($0[1] as Data)) }
        rows.labelCurves = try Row.fetchAll(db, sql: "SELECT id, curve_id FROM labels WHERE curve_id IS NOT NULL").map { ($0[0], $0[1]) }
        return try build(rows)
    }

    /// The snapshot of `rows`.
    package static func build(_ rows: Rows) throws -> TaxonomySnapshot {
        let generation = rows.generation
        var labels: [Int64: Label] = [:]
        var idByIdentifier: [String: Int64] = [:]
        var idsByName: [String: [Int64]] = [:]
        for (id, identifier, displayName, synonymsJSON) in rows.labels {
            let synonyms = (try? JSONDecoder().decode([String].self, from: Data(synonymsJSON.utf8))) ?? []
            let label = Label(id: id, identifier: identifier, displayName: displayName, synonyms: synonyms)
            labels[label.id] = label
            idByIdentifier[label.identifier] = label.id
            let names = [label.identifier, label.displayName] + synonyms
            for name in Set(names.map(TermText.normalize) + names.map(TermText.tokenForm)) where !name.isEmpty {
                idsByName[name, default: []].append(label.id)
            }
        }
        var words: [String: Word] = [:]
        for definition in try Self.vocabulary(json: rows.vocabularyJSON) {
            let word = Word(definition: definition, labelIDs: definition.labels.compactMap { idByIdentifier[$0] })
            for form in Set([TermText.normalize(definition.word), TermText.tokenForm(definition.word)]) where !form.isEmpty {
                words[form] = word
            }
        }
        let maximumNameWords = (Array(idsByName.keys) + Array(words.keys)).map { $0.split(separator: " ").count }.max() ?? 1
        var parents: [Int64: [Int64]] = [:]
        var children: [Int64: [Int64]] = [:]
        for (child, parent) in rows.parents {
            parents[child, default: []].append(parent)
            children[parent, default: []].append(child)
        }
        var curves: [Int64: [CurvePoint]] = [:]
        var unpacked: [Int64: [CurvePoint]] = [:]   // by curve id, read once each
        for (id, points) in rows.curves {
            unpacked[id] = PackedCurve.unpack(points)
        }
        for (label, curve) in rows.labelCurves {
            curves[label] = unpacked[curve]
        }
        var ancestors: [Int64: [Int64]] = [:]
        for id in labels.keys {
            var seen: Set<Int64> = [id]
            var stack = [id]
            var ordered = [id]
            while let next = stack.popLast() {
                for parent in parents[next] ?? [] where seen.insert(parent).inserted {
                    ordered.append(parent)
                    stack.append(parent)
                }
            }
            ancestors[id] = ordered
        }
        return TaxonomySnapshot(
            generation: generation, labels: labels, idByIdentifier: idByIdentifier,
            idsByName: idsByName.mapValues { Array(Set($0)).sorted() }, words: words,
            maximumNameWords: maximumNameWords, parents: parents,
            children: children, curves: curves, ancestorsOrSelf: ancestors)
    }

    /// The search vocabulary stored by `replaceTaxonomy` (empty before the first one with words).
    package static func vocabulary(_ db: Database) throws -> [VocabularyWord] {
        try vocabulary(json: try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'vocabulary'"))
    }

    /// The search vocabulary in its stored JSON form (empty when none is stored).
    package static func vocabulary(json: String?) throws -> [VocabularyWord] {
        guard let json else { return [] }
        do {
            return try JSONDecoder().decode([VocabularyWord].self, from: Data(json.utf8))
        } catch {
            throw TagIndexError.invalidInput(
                "the search vocabulary stored in the index is damaged (\(error)); run classify-tool index to write it again")
        }
    }

    package static func generation(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'taxonomy_generation'") ?? 0
    }

    static func bumpGeneration(_ db: Database) throws {
        try db.execute(sql: """
            INSERT INTO meta(key, value) VALUES ('taxonomy_generation', 1)
            ON CONFLICT(key) DO UPDATE SET value = value + 1
            """)
    }

    private init(
        generation: Int64, labels: [Int64: Label], idByIdentifier: [String: Int64],
        idsByName: [String: [Int64]], words: [String: Word], maximumNameWords: Int,
        parents: [Int64: [Int64]], children: [Int64: [Int64]],
        curves: [Int64: [CurvePoint]], ancestorsOrSelf: [Int64: [Int64]]
    ) {
        self.generation = generation
        self.labels = labels
        self.idByIdentifier = idByIdentifier
        self.idsByName = idsByName
        self.words = words
        self.maximumNameWords = maximumNameWords
        self.parents = parents
        self.children = children
        self.curves = curves
        self.ancestorsOrSelf = ancestorsOrSelf
    }

    /// What `text` names, by its lookup forms in order (as typed, then singular candidates): the
    /// labels whose name it is (taxonomy first) and the vocabulary word it is; nil when neither.
    func entry(named text: String) -> NameEntry? {
        for form in TermText.lookupForms(text) {
            let key = idsByName[form] != nil || words[form] != nil ? form : TermText.tokenForm(form)
            let named = idsByName[key] ?? []
            let word = words[key]
            if !named.isEmpty || word != nil { return NameEntry(form: key, namedLabels: named, word: word) }
        }
        return nil
    }

    /// The label and every label below it.
    package func descendantsOrSelf(_ id: Int64) -> [Int64] {
        var seen: Set<Int64> = [id]
        var stack = [id]
        while let next = stack.popLast() {
            for child in children[next] ?? [] where seen.insert(child).inserted { stack.append(child) }
        }
        return seen.sorted()
    }

    /// The labels of `ids` that have no ancestor in `ids`: their subtrees cover all of `ids`' subtrees.
    func minimalCover(_ ids: Set<Int64>) -> [Int64] {
        ids.filter { id in !(ancestorsOrSelf[id] ?? [id]).dropFirst().contains(where: ids.contains) }.sorted()
    }

    /// Every name a term can use, as written, with its label and normalized form; each label's
    /// identifier first, one entry per label and normalized form.
    var allNames: [(id: Int64, name: String, normalized: String)] {
        var names: [(Int64, String, String)] = []
        for label in labels.values.sorted(by: { $0.id < $1.id }) {
            var seen: Set<String> = []
            for name in [label.identifier, label.displayName] + label.synonyms {
                let normalized = TermText.normalize(name)
                if seen.insert(normalized).inserted { names.append((label.id, name, normalized)) }
            }
        }
        return names
    }

    /// The vocabulary words, each once, sorted by word.
    var vocabularyWords: [Word] {
        var seen: Set<String> = []
        return words.values.filter { seen.insert($0.definition.word).inserted }.sorted { $0.definition.word < $1.definition.word }
    }
}
