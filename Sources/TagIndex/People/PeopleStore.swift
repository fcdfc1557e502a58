import ClassifyPeople
import Foundation

/// What grouping faces into people needs from an index, whichever database holds it: the
/// SQLite ``SQLiteIndex`` and TagIndexPostgres's index both conform. The grouping itself, the
/// ids people keep and the corrections' meaning are written once, in this protocol's extension
/// (``refreshPeople(parameters:force:)``, ``correctPeople(_:)``) and in ClassifyPeople.
///
/// ```swift
/// let refresh = try await index.refreshPeople()
/// for person in try await index.people() { print(person.id, person.name ?? "") }
/// ```
public protocol PeopleStore: AnyObject {
    /// The fingerprint of the faces and corrections the index holds now, and that of the stored
    /// grouping (nil before the first). Usage: `let (current, grouped) = try await index.peopleFingerprints()`
    func peopleFingerprints() async throws -> (current: PeopleFingerprint, grouped: PeopleFingerprint?)

    /// Every described face, correction and stored person id, read at one moment.
    /// Usage: `let inputs = try await index.peopleGroupingInputs()`
    func peopleGroupingInputs() async throws -> PeopleGroupingInputs

    /// Replaces the stored grouping with `grouping` in one transaction, unless the faces or
    /// corrections changed since it was read (another process grouped or corrected meanwhile):
    /// then nothing is written and the answer is false. Usage: `_ = try await index.storePeopleGrouping(stored)`
    func storePeopleGrouping(_ grouping: StoredPeopleGrouping) async throws -> Bool

    /// Records facts about faces, in order, in one transaction (the sequence is the row id).
    /// Usage: `try await index.recordPeopleCorrections([.name(face, "Anna")], source: .user)`
    func recordPeopleCorrections(_ kinds: [PeopleCorrection.Kind], source: CorrectionSource) async throws

    /// Every stored correction, oldest first. Usage: `let facts = try await index.peopleCorrections()`
    func peopleCorrections() async throws -> [PeopleCorrection]

    /// The people of the stored grouping, named first, then by faces.
    /// Usage: `let people = try await index.people()`
    func people() async throws -> [PersonSummary]

    /// The faces of one person of the stored grouping, sorted. Usage: `let faces = try await index.faces(ofPerson: 7)`
    func faces(ofPerson id: Int64) async throws -> [FaceKey]

    /// Faces waiting for a person, by path. Usage: `let waiting = try await index.unassignedFaces(limit: 100)`
    func unassignedFaces(limit: Int) async throws -> [UnassignedFace]

    /// How many faces wait for a person (all that `unassignedFaces` would list), counted in the index.
    /// Usage: `let waiting = try await index.unassignedFaceCount()`
    func unassignedFaceCount() async throws -> Int
}

/// A change to people as a person asks for it, by person ids and faces as `show` numbers them.
///
/// ```swift
/// try await index.correctPeople(.name(person: 7, "Anna"))
/// ```
public enum PeopleRequest: Sendable, Hashable {
    /// Names a person (renames a named one). Usage: `.name(person: 7, "Anna")`
    case name(person: Int64, String)
    /// Makes several people one. Usage: `.merge([7, 12])`
    case merge([Int64])
    /// Names one face (its photo's path and number from 1): the faces grouped with it, and the
    /// faces already given that name, are one person with it. Usage: `.nameFace(path: p, face: 1, "Anna")`
    case nameFace(path: String, face: Int, String)
    /// Moves one face (its photo's path and number from 1) to a person. Usage: `.move(path: p, face: 2, to: 7)`
    case move(path: String, face: Int, to: Int64)
    /// The face is not this person. Usage: `.notThisPerson(path: p, face: 2, person: 7)`
    case notThisPerson(path: String, face: Int, person: Int64)
    /// The detection is not a face. Usage: `.hide(path: p, face: 3)`
    case hide(path: String, face: Int)
}

extension PeopleStore {
    /// Groups the faces again when they or the corrections changed since the stored grouping
    /// (always, and from scratch, with `force`), and stores the people. Safe to call from several processes: a
    /// grouping made from faces that changed while it ran is not stored, and is made again.
    ///
    /// ```swift
    /// let refresh = try await index.refreshPeople()
    /// if refresh.regrouped { print(refresh.people, "people") }
    /// ```
    public func refreshPeople(parameters: GroupingParameters = GroupingParameters(), force: Bool = false) async throws -> PeopleRefresh {
        for _ in 0..<5 {
            let fingerprints = try await peopleFingerprints()
            if !force, fingerprints.current == fingerprints.grouped {
                return PeopleRefresh(regrouped: false, people: 0, named: 0, unassigned: 0, faces: 0)
            }
            var inputs = try await peopleGroupingInputs()
            // Forced: from scratch, whatever state is stored.
            if force { inputs.snapshot = nil }
            let grouper = try Self.grouper(for: inputs, parameters: parameters)
            var stored = StoredPeopleGrouping(grouper.groups(), inputs: inputs)
            stored.snapshot = grouper.snapshot().encoded()
            if try await storePeopleGrouping(stored) {
                return PeopleRefresh(
                    regrouped: true, people: stored.people.count, named: stored.people.filter { $0.name != nil }.count,
                    unassigned: stored.unassigned.count, faces: inputs.faces.count)
            }
        }
        throw TagIndexError.invalidInput("faces or corrections kept changing while people were grouped; try again")
    }

    /// A grouper holding `inputs`: continued from the stored snapshot when it still fits (only the
    /// new faces' pairs are measured), else built from scratch; the same people either way.
    static func grouper(for inputs: PeopleGroupingInputs, parameters: GroupingParameters) throws -> PeopleGrouper {
        if let bytes = inputs.snapshot, let snapshot = try? GroupingSnapshot(decoding: bytes),
            var grouper = try PeopleGrouper(restoring: snapshot, faces: inputs.faces, parameters: parameters)
        {
            grouper.corrections = inputs.corrections
            let known = Set(snapshot.keys)
            try grouper.add(inputs.faces.filter { !known.contains($0.key) })
            return grouper
        }
        var grouper = try PeopleGrouper(parameters: parameters)
        grouper.corrections = inputs.corrections
        try grouper.add(inputs.faces)
        return grouper
    }
}

extension IndexBackend {
    /// Records a person's correction and regroups: the people and search reflect it when this returns.
    ///
    /// ```swift
    /// try await index.correctPeople(.merge([7, 12]))
    /// ```
    @discardableResult
    public func correctPeople(_ request: PeopleRequest, parameters: GroupingParameters = GroupingParameters()) async throws -> PeopleRefresh {
        // The ids a person types are those of the stored grouping: bring it up to date first.
        _ = try await refreshPeople(parameters: parameters)
        let people = Dictionary(uniqueKeysWithValues: try await people().map { ($0.id, $0) })
        func anchor(_ id: Int64) throws -> FaceKey {
            guard let person = people[id] else { throw TagIndexError.invalidInput("no person has the id \(id); `people` lists them") }
            return person.anchor
        }
        var kinds: [PeopleCorrection.Kind] = []
        switch request {
        case .name(let id, let name):
            kinds = [.name(try anchor(id), try Self.checkedName(name))]
        case .nameFace(let path, let number, let name):
            let checked = try Self.checkedName(name)
            let (face, current) = try await self.face(path: path, number: number)
            let renames = current.flatMap { people[$0]?.name }.map { $0 != checked } ?? false
            kinds = (renames ? try await keepingFacts(of: current.flatMap { people[$0] }, without: face) : []) + [.name(face, checked)]
        case .merge(let ids):
            let distinct = Array(Set(ids)).sorted()
            guard distinct.count >= 2 else { throw TagIndexError.invalidInput("merging takes two people or more") }
            let first = try anchor(distinct[0])
            kinds = try distinct.dropFirst().map { .merge(first, try anchor($0)) }
        case .move(let path, let number, let id):
            let (face, current) = try await self.face(path: path, number: number)
            let target = try anchor(id)
            // Already there: nothing to record.
            if current != id { kinds = try await keepingFacts(of: current.flatMap { people[$0] }, without: face) + [.move(face, to: target)] }
        case .notThisPerson(let path, let number, let id):
            let (face, current) = try await self.face(path: path, number: number)
            guard let person = people[id] else { throw TagIndexError.invalidInput("no person has the id \(id); `people` lists them") }
            // The fact names the person by one of its faces: never by the face it takes out.
            var reference = person.anchor
            if reference == face {
                guard let other = try await faces(ofPerson: id).first(where: { $0 != face }) else {
                    throw TagIndexError.invalidInput("face \(number) of \(path) is person \(id)'s only face; hide it if it is not a face")
                }
                reference = other
            }
            kinds = (current == id ? try await keepingFacts(of: person, without: face) : []) + [.notThisPerson(face, person: reference)]
        case .hide(let path, let number):
            let (face, current) = try await self.face(path: path, number: number)
            kinds = try await keepingFacts(of: current.flatMap { people[$0] }, without: face) + [.notAFace(face)]
        }
        if !kinds.isEmpty { try await recordPeopleCorrections(kinds, source: .user) }
        return try await refreshPeople(parameters: parameters)
    }

    /// A person's name as given, trimmed; a sentence when it is empty, too long or a number.
    static func checkedName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw TagIndexError.invalidInput("a person's name cannot be empty") }
        guard trimmed.count <= 200 else { throw TagIndexError.invalidInput("a person's name has at most 200 characters") }
        guard Int64(trimmed) == nil else {
            throw TagIndexError.invalidInput("a person's name cannot be a number: person:\(trimmed) would mean the id")
        }
        return trimmed
    }

    /// When `face` leaves `person` (as the stored grouping lists it), the facts that name that person by `face` (the name it
    /// goes by, faces moved to it, merges, faces that are not it) given again with another of its
    /// faces, oldest first, so they keep meaning that person once `face` is gone. A name the face
    /// was given that the person does not go by (it lost to another when two people merged) stays
    /// with the face: given again, as the newest fact, it would rename the person.
    private func keepingFacts(of person: PersonSummary?, without face: FaceKey) async throws -> [PeopleCorrection.Kind] {
        guard let person, let other = try await faces(ofPerson: person.id).first(where: { $0 != face }) else { return [] }
        let shownName = person.name
        return try await peopleCorrections().compactMap { fact -> PeopleCorrection.Kind? in
            switch fact.kind {
            case .name(face, let name) where name == shownName: .name(other, name)
            case .move(let moved, to: face) where moved != face: .move(moved, to: other)
            case .notThisPerson(let kept, person: face) where kept != face: .notThisPerson(kept, person: other)
            case .merge(face, let with) where with != face && with != other, .merge(let with, face) where with != face && with != other:
                .merge(other, with)
            default: nil
            }
        }
    }

    /// The key of face `number` (from 1, as `show` numbers them) of the photo at `path`, and the
    /// person it is in now.
    func face(path: String, number: Int) async throws -> (key: FaceKey, person: Int64?) {
        guard let image = try await image(atPath: path), let hash = image.contentHash else {
            throw TagIndexError.invalidInput("\(path) is not in the index; index its folder first")
        }
        let faces = try await faces(forPath: path) ?? []
        guard (1...max(1, faces.count)).contains(number), number <= faces.count else {
            throw TagIndexError.invalidInput(
                faces.isEmpty ? "\(path) has no stored faces" : "\(path) has \(faces.count) face\(faces.count == 1 ? "" : "s"); face \(number) is not one of them")
        }
        return (FaceKey(contentHash: hash, faceNumber: number - 1), faces[number - 1].person?.id)
    }
}
