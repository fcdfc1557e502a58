import ClassifyPeople
import Foundation

/// One person as `people` lists them: id, name, how many faces and photos, a sample photo.
///
/// ```swift
/// for person in try await index.people() { print(person.id, person.name ?? "", person.faceCount) }
/// ```
public struct PersonSummary: Sendable, Hashable, Codable {
    /// The person's id, kept across regroupings (`person:7`). Usage: `person.id`
    public var id: Int64
    /// The name a correction gave; nil while unnamed. Usage: `person.name ?? "unnamed"`
    public var name: String?
    /// Faces grouped into the person. Usage: `person.faceCount`
    public var faceCount: Int
    /// Photos (distinct contents) the person is in. Usage: `person.photoCount`
    public var photoCount: Int
    /// The face that anchors the person (corrections about the person name it). Usage: `person.anchor`
    public var anchor: FaceKey
    /// A path of the photo holding the anchor face. Usage: `person.samplePath`
    public var samplePath: String?

    /// Usage: `PersonSummary(id: 7, name: "Anna", faceCount: 41, photoCount: 39, anchor: key, samplePath: path)`
    public init(id: Int64, name: String?, faceCount: Int, photoCount: Int, anchor: FaceKey, samplePath: String?) {
        self.id = id
        self.name = name
        self.faceCount = faceCount
        self.photoCount = photoCount
        self.anchor = anchor
        self.samplePath = samplePath
    }
}

/// A face waiting for a person, where `show` lists it: too few similar faces yet, or a face too
/// small to recognize (``isTooSmallToGroup``), which only a correction places.
///
/// Usage: `for face in try await index.unassignedFaces(limit: 50) { print(face.path, face.faceNumber) }`
public struct UnassignedFace: Sendable, Hashable, Codable {
    /// A path of the photo. Usage: `face.path`
    public var path: String
    /// The face's number in the photo, from 1 as `show` lists it. Usage: `face.faceNumber`
    public var faceNumber: Int
    /// The shorter side of the face's box, in pixels of the upright photo; nil when the index
    /// holds no box for it. Usage: `face.side.map { "\($0) px" }`
    public var side: Double?
    /// ``side`` in whole pixels, rounded down (so a 39.6-px face is never shown as 40 and too
    /// small), as `people --unassigned` prints and writes it. Usage: `face.wholePixelSide`
    public var wholePixelSide: Int? { side.map { Int($0.rounded(.down)) } }

    /// Usage: `UnassignedFace(path: path, faceNumber: 1, side: 64)`
    public init(path: String, faceNumber: Int, side: Double? = nil) {
        self.path = path
        self.faceNumber = faceNumber
        self.side = side
    }

    /// Whether the face is smaller than automatic grouping takes (`minimumFaceSide`, 40 px by
    /// default): it waits whatever other faces are like it, until it is named or moved.
    ///
    /// Usage: `if face.isTooSmallToGroup(GroupingParameters()) { print("name it to place it") }`
    public func isTooSmallToGroup(_ parameters: GroupingParameters = GroupingParameters()) -> Bool {
        side.map { $0 < parameters.minimumFaceSide } ?? false
    }

    /// The smallest side automatic grouping takes by default, in pixels.
    ///
    /// Usage: `print("faces under \(UnassignedFace.smallestGroupedSide) px wait")`
    public static var smallestGroupedSide: Double { GroupingParameters().minimumFaceSide }

    /// The face's box side (`side`) from a content's stored faces (``IndexedFace`` rows), by
    /// the face's number from 0.
    package static func storedSide(ofFace number: Int, in stored: Data?) -> Double? {
        guard let stored, let boxes = IndexedFace.decode(stored), number < boxes.count else { return nil }
        return boxes[number].shorterSide
    }
}

/// What refreshing people did.
///
/// Usage: `let refresh = try await index.refreshPeople(); print(refresh.people)`
public struct PeopleRefresh: Sendable, Hashable {
    /// Whether the faces or corrections had changed, so people were grouped again.
    public var regrouped: Bool
    /// People after the refresh (0 when not regrouped and not counted).
    public var people: Int
    /// Named people among them.
    public var named: Int
    /// Faces waiting for a person.
    public var unassigned: Int
    /// Faces grouped.
    public var faces: Int

    /// Usage: `PeopleRefresh(regrouped: false, people: 0, named: 0, unassigned: 0, faces: 0)`
    public init(regrouped: Bool, people: Int, named: Int, unassigned: Int, faces: Int) {
        self.regrouped = regrouped
        self.people = people
        self.named = named
        self.unassigned = unassigned
        self.faces = faces
    }
}
