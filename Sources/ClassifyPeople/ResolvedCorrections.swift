import Foundation

/// Corrections turned into constraints over face indices: hidden faces, confirmed groups
/// (union-find of the face-level must-link facts: name, move) and the cannot-link pairs that were
/// kept. Merges are person-level: they are listed here and applied to the assembled people.
///
/// Facts are applied one at a time in `PeopleCorrection.applicationOrder` (priority, then
/// recency), so whichever order they are stored in, the same facts win. A must-link (name, merge,
/// move) that would put two faces of a kept cannot-link into one person is not applied; a
/// cannot-link between faces already confirmed as one person is not applied either.
struct ResolvedCorrections {
    /// Faces corrected as not a face.
    var hidden: Set<Int> = []
    /// Faces a kept must-link confirmed; each is in `group(of:)`.
    var confirmed: Set<Int> = []
    /// Confirmed faces that were moved: they belong to their group but do not attract others.
    var moved: Set<Int> = []
    /// The kept cannot-link pairs (face, face of the person it is not).
    var separated: [(face: Int, person: Int)] = []
    /// Each group's name: the first applied name fact's, in application order.
    private var names: [Int: String] = [:]
    var unapplied: [PeopleCorrection] = []
    /// Merge facts on known, visible faces, in application order.
    var merges: [(first: Int, second: Int, fact: PeopleCorrection)] = []
    /// Each name fact applied, in application order (its rank decides a merged person's name).
    private(set) var appliedNames: [(face: Int, name: String)] = []
    private var parent: [Int]
    private let faceCount: Int

    /// Faces left out of automatic clustering: hidden ones, and moved ones (a moved face leaves
    /// the faces it was grouped with, which must not follow it).
    var excluded: Set<Int> { hidden.union(moved) }

    init(_ corrections: [PeopleCorrection], index: [FaceKey: Int], faceCount: Int) {
        self.faceCount = faceCount
        let ordered = corrections.sorted(by: PeopleCorrection.applicationOrder)
        var nameNodes: [String: Int] = [:]
        for fact in ordered {
            if case .name(_, let name) = fact.kind, let clean = Self.cleanName(name), nameNodes[clean] == nil {
                nameNodes[clean] = faceCount + nameNodes.count
            }
        }
        parent = Array(0..<(faceCount + nameNodes.count))

        for fact in ordered {
            if case .notAFace(let face) = fact.kind, let known = index[face] { hidden.insert(known) }
        }
        var assigned: Set<Int> = []
        for fact in ordered {
            let faces = fact.faces.map { index[$0] }
            guard faces.allSatisfy({ $0 != nil }) else {
                unapplied.append(fact)
                continue
            }
            let known = faces.map { $0! }
            if case .notAFace = fact.kind { continue }
            guard known.allSatisfy({ !hidden.contains($0) }) else {
                unapplied.append(fact)
                continue
            }
            var applied = true
            switch fact.kind {
            case .name(_, let name):
                if let clean = Self.cleanName(name), assigned.insert(known[0]).inserted,
                    link(known[0], nameNodes[clean]!)
                {
                    appliedNames.append((known[0], clean))
                } else {
                    applied = false
                }
            case .move:
                applied = known[0] != known[1] && assigned.insert(known[0]).inserted && link(known[0], known[1])
                if applied { moved.insert(known[0]) }
            case .merge:
                // Person-level: applied once people are assembled (see PeopleAssembly).
                merges.append((known[0], known[1], fact))
            case .notThisPerson:
                applied = known[0] != known[1] && find(known[0]) != find(known[1])
                if applied { separated.append((known[0], known[1])) }
            case .notAFace:
                break
            }
            if !applied { unapplied.append(fact) }
        }
        // The first applied name in application order names the group (roots are final now).
        for applied in appliedNames {
            let root = find(applied.face)
            if names[root] == nil { names[root] = applied.name }
        }
    }

    /// The confirmed group a face is in (its root), or nil.
    mutating func group(of face: Int) -> Int? {
        confirmed.contains(face) ? find(face) : nil
    }

    func name(ofGroup root: Int) -> String? { names[root] }

    /// Groups a face may not join: those holding a face it was separated from (either way).
    mutating func barredGroups(for face: Int) -> Set<Int> {
        var barred: Set<Int> = []
        for pair in separated {
            if pair.face == face, let group = group(of: pair.person) { barred.insert(group) }
            if pair.person == face, let group = group(of: pair.face) { barred.insert(group) }
        }
        return barred
    }

    /// The rank (in application order) of the name a group took, for choosing between names when
    /// people merge; nil for a group without a name.
    mutating func nameRank(ofGroup root: Int) -> Int? {
        appliedNames.firstIndex { find($0.face) == root }
    }

    /// Unites two nodes unless a kept cannot-link would end up inside one group.
    private mutating func link(_ a: Int, _ b: Int) -> Bool {
        let rootA = find(a), rootB = find(b)
        if rootA != rootB {
            for pair in separated {
                let x = find(pair.face), y = find(pair.person)
                if (x == rootA && y == rootB) || (x == rootB && y == rootA) { return false }
            }
            parent[max(rootA, rootB)] = min(rootA, rootB)
        }
        for node in [a, b] where node < faceCount { confirmed.insert(node) }
        return true
    }

    private mutating func find(_ node: Int) -> Int {
        var root = node
        while parent[root] != root { root = parent[root] }
        var walker = node
        while parent[walker] != root {
            let next = parent[walker]
            parent[walker] = root
            walker = next
        }
        return root
    }

    /// A name with surrounding spaces trimmed; nil when nothing is left.
    static func cleanName(_ name: String) -> String? {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
