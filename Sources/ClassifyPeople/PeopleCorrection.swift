/// One stored fact about people, made by someone (or imported), that grouping must respect.
///
/// Corrections name faces, never people: a person is whatever the grouping makes of the faces,
/// so a fact keeps its meaning however often people are regrouped. When facts disagree, the one
/// with the higher `priority` wins, then the later `sequence` (the order they were recorded in).
///
/// ```swift
/// let fact = PeopleCorrection(.name(face, "Alice"), source: .user, sequence: 12)
/// ```
public struct PeopleCorrection: Sendable, Hashable, Codable {
    /// Usage: `fact.kind`
    public var kind: Kind
    /// Who made the fact. Usage: `fact.source`
    public var source: CorrectionSource
    /// Higher wins when facts disagree; defaults to the source's. Usage: `fact.priority`
    public var priority: Int
    /// When the fact was recorded, as an increasing number (a row id); later wins a tie of priority.
    /// Usage: `fact.sequence`
    public var sequence: Int64

    /// What a correction says.
    ///
    /// ```swift
    /// let kind: PeopleCorrection.Kind = .notThisPerson(stranger, person: aliceFace)
    /// ```
    public enum Kind: Sendable, Hashable, Codable {
        /// The face is the person called `name`. Faces with the same name are one person; a named
        /// face never moves by automatic grouping, and the faces automatically grouped with it
        /// join its person.
        case name(FaceKey, String)
        /// The people the two faces are in are one person (both faces become confirmed).
        case merge(FaceKey, FaceKey)
        /// The face belongs to the person `target` is in, and only the face moves: it leaves the
        /// automatic grouping, so the faces it was grouped with do not follow it.
        case move(FaceKey, to: FaceKey)
        /// The face is not the person `person` is in: they are never in one person.
        case notThisPerson(FaceKey, person: FaceKey)
        /// The detection is not a face: it is hidden and takes no part in grouping.
        case notAFace(FaceKey)
    }

    /// Usage: `PeopleCorrection(.merge(a, b), source: .user, sequence: 3)`
    public init(_ kind: Kind, source: CorrectionSource, priority: Int? = nil, sequence: Int64) {
        self.kind = kind
        self.source = source
        self.priority = priority ?? source.defaultPriority
        self.sequence = sequence
    }

    /// The faces the fact names. Usage: `fact.faces.allSatisfy(known.contains)`
    public var faces: [FaceKey] {
        switch kind {
        case .name(let face, _), .notAFace(let face): [face]
        case .merge(let a, let b), .move(let a, to: let b), .notThisPerson(let a, person: let b): [a, b]
        }
    }

    /// Facts in the order they are applied: higher priority first, then later sequence, then by
    /// content, so the order they are listed in never matters.
    static func applicationOrder(_ lhs: PeopleCorrection, _ rhs: PeopleCorrection) -> Bool {
        if lhs.priority != rhs.priority { return lhs.priority > rhs.priority }
        if lhs.sequence != rhs.sequence { return lhs.sequence > rhs.sequence }
        return lhs.kind.sortKey.lexicographicallyPrecedes(rhs.kind.sortKey)
    }
}

/// Who made a correction; the source gives its default priority: a person's own word beats an
/// import, which beats a guess by a tool.
///
/// ```swift
/// let source: CorrectionSource = .imported("xmp")
/// ```
public enum CorrectionSource: Sendable, Hashable, Codable {
    /// Made by a person in the tool or the gallery (priority 100).
    case user
    /// Read from elsewhere, e.g. XMP face regions written by another program (priority 50).
    case imported(String)
    /// Made by a program's rule (priority 10); still beats automatic grouping, which is no fact.
    case rule(String)

    /// Usage: `CorrectionSource.user.defaultPriority  // 100`
    public var defaultPriority: Int {
        switch self {
        case .user: 100
        case .imported: 50
        case .rule: 10
        }
    }
}

extension PeopleCorrection.Kind {
    /// A total order on contents for ties of priority and sequence.
    var sortKey: [String] {
        switch self {
        case .name(let face, let name): ["0", face.contentHash, String(face.faceNumber), name]
        case .merge(let a, let b): ["1", a.contentHash, String(a.faceNumber), b.contentHash, String(b.faceNumber)]
        case .move(let a, let b): ["2", a.contentHash, String(a.faceNumber), b.contentHash, String(b.faceNumber)]
        case .notThisPerson(let a, let b): ["3", a.contentHash, String(a.faceNumber), b.contentHash, String(b.faceNumber)]
        case .notAFace(let face): ["4", face.contentHash, String(face.faceNumber)]
        }
    }
}
