/// The result of grouping: people, faces waiting for a person, and hidden detections.
///
/// Everything is sorted (people by id, faces by key), so equal inputs give equal values.
///
/// ```swift
/// let groups = try PeopleGrouping.group(faces, corrections: facts)
/// for person in groups.people { print(person.name ?? "unnamed", person.faces.count) }
/// ```
public struct PeopleGroups: Sendable, Hashable {
    /// Usage: `groups.people.count`
    public var people: [Person]
    /// Faces in no person yet (too few similar faces, or kept out by a correction).
    /// Usage: `groups.unassigned.count`
    public var unassigned: [FaceKey]
    /// Faces corrected as not a face. Usage: `groups.hidden.contains(key)`
    public var hidden: [FaceKey]
    /// Corrections that named a face the grouping was not given, or lost to a higher one; kept
    /// as facts, applied when they can be. Usage: `groups.unappliedCorrections.count`
    public var unappliedCorrections: [PeopleCorrection]

    /// Usage: `PeopleGroups(people: [], unassigned: [], hidden: [], unappliedCorrections: [])`
    public init(people: [Person], unassigned: [FaceKey], hidden: [FaceKey], unappliedCorrections: [PeopleCorrection]) {
        self.people = people
        self.unassigned = unassigned
        self.hidden = hidden
        self.unappliedCorrections = unappliedCorrections
    }

    /// The person a face is in, if any. Usage: `groups.person(containing: key)?.name`
    public func person(containing face: FaceKey) -> Person? {
        people.first { $0.faces.contains(face) }
    }
}

/// One person: an id, an optional name and the faces.
///
/// ```swift
/// print(person.id, person.name ?? "unnamed", person.confirmedFaces.count, "of", person.faces.count)
/// ```
public struct Person: Sendable, Hashable, Identifiable {
    /// Usage: `person.id`
    public var id: PersonID
    /// The winning name among its faces' name corrections. Usage: `person.name ?? "unnamed"`
    public var name: String?
    /// All its faces, sorted. Usage: `person.faces.count`
    public var faces: [FaceKey]
    /// The faces a correction put here (named, merged, moved); automatic grouping never moves
    /// them. Empty for a person found by grouping alone. Usage: `person.confirmedFaces`
    public var confirmedFaces: [FaceKey]

    /// Usage: `Person(id: id, name: "Alice", faces: faces, confirmedFaces: [])`
    public init(id: PersonID, name: String?, faces: [FaceKey], confirmedFaces: [FaceKey]) {
        self.id = id
        self.name = name
        self.faces = faces
        self.confirmedFaces = confirmedFaces
    }
}
