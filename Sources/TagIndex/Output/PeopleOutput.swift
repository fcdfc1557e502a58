import ClassifyPeople
import Foundation

/// `classify-tool people --format json`: `{"people": [{"id": 7, "name": "Anna", "faces": 41,
/// "photos": 39, "sample": "/path/to/photo.jpg"}]}`, the name empty while unnamed.
///
/// Usage: `let data = try JSONOutput.encode(PeopleOutput(people))`
public struct PeopleOutput: Codable, Sendable {
    /// One person.
    public struct Person: Codable, Sendable {
        public var id: Int64
        public var name: String
        public var faces: Int
        public var photos: Int
        public var sample: String?
    }

    public var people: [Person]

    /// Usage: `PeopleOutput(try await index.people())`
    public init(_ people: [PersonSummary]) {
        self.people = people.map { Person(id: $0.id, name: $0.name ?? "", faces: $0.faceCount, photos: $0.photoCount, sample: $0.samplePath) }
    }
}

/// `classify-tool people --unassigned --format json`: `{"unassigned": [{"path": "/a.jpg", "face": 2,
/// "side": 31, "too_small": true}]}`: `side` is the shorter side of the face's box in whole pixels,
/// rounded down (absent when unknown), `too_small` says it is under the size automatic grouping takes.
///
/// Usage: `let data = try JSONOutput.encode(UnassignedFacesOutput(faces))`
public struct UnassignedFacesOutput: Codable, Sendable {
    /// One waiting face: its photo, its number there (from 1, as `show` lists faces), its size.
    public struct Face: Codable, Sendable {
        public var path: String
        public var face: Int
        public var side: Int?
        public var tooSmall: Bool

        enum CodingKeys: String, CodingKey {
            case path, face, side
            case tooSmall = "too_small"
        }
    }

    public var unassigned: [Face]

    /// Usage: `UnassignedFacesOutput(try await index.unassignedFaces(limit: 100))`
    public init(_ faces: [UnassignedFace], parameters: GroupingParameters = GroupingParameters()) {
        unassigned = faces.map {
            Face(path: $0.path, face: $0.faceNumber, side: $0.wholePixelSide, tooSmall: $0.isTooSmallToGroup(parameters))
        }
    }
}
