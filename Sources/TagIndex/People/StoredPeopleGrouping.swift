import ClassifyPeople
import Foundation

/// A grouping as the index stores it: people with small integer ids, and every face's person.
///
/// A person keeps its id across regroupings: each new person takes the id of the stored person
/// that held most of its faces (ties to the smaller id), largest people first, each id once; a
/// person with none of the stored faces gets a new id, never one used before. So naming, merging
/// or adding photos keeps `person:7` the same person, and two merged people keep the id of the
/// one that had more faces.
///
/// ```swift
/// let stored = StoredPeopleGrouping(groups, inputs: inputs)
/// ```
public struct StoredPeopleGrouping: Sendable {
    /// One stored person. Usage: `for person in grouping.people { print(person.id, person.faces.count) }`
    public struct Person: Sendable, Hashable {
        /// Usage: `person.id`
        public var id: Int64
        /// Usage: `person.name ?? ""`
        public var name: String?
        /// The face corrections about the person name. Usage: `person.anchor`
        public var anchor: FaceKey
        /// Usage: `person.faces.count`
        public var faces: [FaceKey]
        /// Distinct contents among the faces. Usage: `person.photoCount`
        public var photoCount: Int
    }

    /// Usage: `grouping.people.count`
    public var people: [Person]
    /// Faces waiting for a person. Usage: `grouping.unassigned.count`
    public var unassigned: [FaceKey]
    /// Faces corrected as not a face. Usage: `grouping.hidden.count`
    public var hidden: [FaceKey]
    /// The first id no person has had yet (stored in `meta`). Usage: `grouping.nextID`
    public var nextID: Int64
    /// What the grouping was made from. Usage: `grouping.fingerprint`
    public var fingerprint: PeopleFingerprint
    /// The grouper's state to continue from next time (``GroupingSnapshot``'s bytes); nil keeps none.
    /// Usage: `grouping.snapshot?.count`
    public var snapshot: Data?

    /// The `meta` key of ``nextID``.
    package static let nextIDKey = "people_next_id"

    /// Gives the people of `groups` their ids from `inputs.previous`.
    package init(_ groups: PeopleGroups, inputs: PeopleGroupingInputs) {
        var nextID = max(inputs.nextID, (inputs.previous.values.max() ?? 0) + 1)
        var taken: Set<Int64> = []
        let order = groups.people.sorted { ($0.faces.count, $1.id) > ($1.faces.count, $0.id) }
        var ids: [PersonID: Int64] = [:]
        for person in order {
            var votes: [Int64: Int] = [:]
            for face in person.faces { if let old = inputs.previous[face] { votes[old, default: 0] += 1 } }
            let ranked = votes.sorted { ($0.value, $1.key) > ($1.value, $0.key) }
            if let kept = ranked.first(where: { !taken.contains($0.key) })?.key {
                ids[person.id] = kept
            } else {
                ids[person.id] = nextID
                nextID += 1
            }
            taken.insert(ids[person.id]!)
        }
        people = groups.people.map { person in
            Person(
                id: ids[person.id]!, name: person.name, anchor: person.id.anchor, faces: person.faces,
                photoCount: Set(person.faces.map(\.contentHash)).count)
        }.sorted { $0.id < $1.id }
        unassigned = groups.unassigned
        hidden = groups.hidden
        self.nextID = nextID
        fingerprint = inputs.fingerprint
        snapshot = nil
    }

    /// Rows of `face_people`: (content hash, face number, person id or nil, hidden).
    package var faceRows: [(hash: String, number: Int, person: Int64?, hidden: Bool)] {
        var rows: [(hash: String, number: Int, person: Int64?, hidden: Bool)] = []
        for person in people { for face in person.faces { rows.append((face.contentHash, face.faceNumber, person.id, false)) } }
        for face in unassigned { rows.append((face.contentHash, face.faceNumber, nil, false)) }
        for face in hidden { rows.append((face.contentHash, face.faceNumber, nil, true)) }
        return rows
    }
}

/// What grouping people reads from an index, in one consistent read.
///
/// Usage: `let inputs = try await index.peopleGroupingInputs()`
public struct PeopleGroupingInputs: Sendable {
    /// Every described face, one per content (twins once).
    public var faces: [DescribedFace]
    /// Every stored correction.
    public var corrections: [PeopleCorrection]
    /// Each face's person in the stored grouping.
    public var previous: [FaceKey: Int64]
    /// The first unused person id.
    public var nextID: Int64
    /// The fingerprint of `faces` and `corrections`.
    public var fingerprint: PeopleFingerprint
    /// The stored grouper state (``GroupingSnapshot``'s bytes), nil when none.
    public var snapshot: Data?

    /// Usage: `PeopleGroupingInputs(faces: faces, corrections: [], previous: [:], nextID: 1, fingerprint: fingerprint)`
    public init(
        faces: [DescribedFace], corrections: [PeopleCorrection], previous: [FaceKey: Int64], nextID: Int64, fingerprint: PeopleFingerprint,
        snapshot: Data? = nil
    ) {
        self.snapshot = snapshot
        self.faces = faces
        self.corrections = corrections
        self.previous = previous
        self.nextID = nextID
        self.fingerprint = fingerprint
    }

    /// The faces of rows of ``PeopleSchema/describedFaces`` (hash, descriptors blob, faces blob),
    /// twins once; faces whose descriptor is zeros (no chip) are left out.
    package static func faces(fromRows rows: [(hash: String, blob: Data, faces: Data)]) -> [DescribedFace] {
        var reader = FaceRowReader()
        for row in rows { reader.add(hash: row.hash, blob: row.blob, faces: row.faces) }
        return reader.faces
    }

    /// Turns rows of ``PeopleSchema/describedFaces`` into faces one at a time, so a cursor's blobs
    /// need not all be held at once.
    package struct FaceRowReader {
        package private(set) var faces: [DescribedFace] = []
        private var last: String?

        package init() {}

        /// Adds the faces of one row (nothing for a twin of the previous content), each with the
        /// shorter side of its stored box.
        package mutating func add(hash: String, blob: Data, faces stored: Data) {
            guard hash != last else { return }
            last = hash
            let boxes = IndexedFace.decode(stored) ?? []
            for (number, descriptor) in IndexedFace.decodeDescriptors(blob).enumerated() {
                guard let descriptor else { continue }
                let side = number < boxes.count ? boxes[number].shorterSide : nil
                faces.append(DescribedFace(key: FaceKey(contentHash: hash, faceNumber: number), descriptor: descriptor, side: side))
            }
        }
    }
}
