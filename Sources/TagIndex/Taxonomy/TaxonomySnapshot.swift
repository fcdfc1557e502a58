import Foundation
import GRDB

/// An immutable in-memory copy of the taxonomy, reloaded when its generation
/// (`meta.taxonomy_generation`) changes.
final class TaxonomySnapshot: Sendable {
    struct Label: Sendable {
        let id: Int64
        let identifier: String
        let displayName: String
        let synonyms: [String]
    }

    let generation: Int64
    let labels: [Int64: Label]
    let idByIdentifier: [String: Int64]
    /// Normalized identifier, display name or synonym -> label ids.
    let idsByName: [String: [Int64]]
    let parents: [Int64: [Int64]]
    let children: [Int64: [Int64]]
    let curves: [Int64: [CurvePoint]]
    /// Label and all labels above it.
    let ancestorsOrSelf: [Int64: [Int64]]

    static func load(_ db: Database) throws -> TaxonomySnapshot {
        let generation = try generation(db)
        var labels: [Int64: Label] = [:]
        var idByIdentifier: [String: Int64] = [:]
        var idsByName: [String: [Int64]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, identifier, display_name, synonyms FROM labels")
        while let row = try rows.next() {
            let synonymsJSON: String = row[3]
            let synonyms = (try? JSONDecoder().decode([String].self, from: Data(synonymsJSON.utf8))) ?? []
            let label = Label(id: row[0], identifier: row[1], displayName: row[2], synonyms: synonyms)
            labels[label.id] = label
            idByIdentifier[label.identifier] = label.id
            for name in Set([label.identifier, label.displayName] + synonyms).map(TermText.normalize) {
                idsByName[name, default: []].append(label.id)
            }
        }
        var parents: [Int64: [Int64]] = [:]
        var children: [Int64: [Int64]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT label_id, parent_id FROM label_parents") {
            let child: Int64 = row[0]
            let parent: Int64 = row[1]
            parents[child, default: []].append(parent)
            children[parent, default: []].append(child)
        }
        var curves: [Int64: [CurvePoint]] = [:]
        var unpacked: [Int64: [CurvePoint]] = [:]   // by curve id, read once each
        for row in try Row.fetchAll(db, sql: "SELECT id, points FROM curves") {
            unpacked[row[0]] = PackedCurve.unpack(Array(row[1] as Data))
        }
        for row in try Row.fetchAll(db, sql: "SELECT id, curve_id FROM labels WHERE curve_id IS NOT NULL") {
            curves[row[0]] = unpacked[row[1] as Int64]
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
            idsByName: idsByName.mapValues { $0.sorted() }, parents: parents,
            children: children, curves: curves, ancestorsOrSelf: ancestors)
    }

    static func generation(_ db: Database) throws -> Int64 {
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
        idsByName: [String: [Int64]], parents: [Int64: [Int64]], children: [Int64: [Int64]],
        curves: [Int64: [CurvePoint]], ancestorsOrSelf: [Int64: [Int64]]
    ) {
        self.generation = generation
        self.labels = labels
        self.idByIdentifier = idByIdentifier
        self.idsByName = idsByName
        self.parents = parents
        self.children = children
        self.curves = curves
        self.ancestorsOrSelf = ancestorsOrSelf
    }

    /// The label and every label below it.
    func descendantsOrSelf(_ id: Int64) -> [Int64] {
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

    /// Every name a term can use, as written, with its normalized form;
    /// identifiers first, one entry per normalized form.
    var allNames: [(name: String, normalized: String)] {
        var names: [(String, String)] = []
        var seen: Set<String> = []
        for label in labels.values.sorted(by: { $0.id < $1.id }) {
            for name in [label.identifier, label.displayName] + label.synonyms {
                let normalized = TermText.normalize(name)
                if seen.insert(normalized).inserted { names.append((name, normalized)) }
            }
        }
        return names
    }
}
