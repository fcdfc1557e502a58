/// A person's identity in a grouping: the key of the face that anchors it.
///
/// The anchor is the earliest face (in `FaceKey` order) among the faces a person is made of: its
/// confirmed faces for a person shaped by corrections, all its faces for an automatic one. So the
/// same faces and corrections always give the same ids, and an id only changes when an earlier
/// face joins or two people merge.
///
/// ```swift
/// let alice = groups.people.first { $0.name == "Alice" }?.id
/// ```
public struct PersonID: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The anchoring face. Usage: `id.anchor.contentHash`
    public var anchor: FaceKey

    /// Usage: `PersonID(anchor: key)`
    public init(anchor: FaceKey) { self.anchor = anchor }

    /// Usage: `people.sorted { $0.id < $1.id }`
    public static func < (lhs: PersonID, rhs: PersonID) -> Bool { lhs.anchor < rhs.anchor }

    /// `person:hash#number`. Usage: `print(id)`
    public var description: String { "person:\(anchor)" }
}
