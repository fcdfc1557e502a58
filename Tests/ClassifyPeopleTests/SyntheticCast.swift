import Foundation
import ClassifyPeople
import ClassifyTestSupport

/// A set of synthetic people and their faces, with the truth kept for assertions.
struct SyntheticCast {
    var faces: [DescribedFace] = []
    /// Face key -> the index of the person it was drawn from (nil for a stranger).
    var truth: [FaceKey: Int] = [:]
    var centers: [[Float]] = []
    var random: SeededRandom

    init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// Adds a person with `count` faces; returns its index.
    @discardableResult
    mutating func addPerson(faces count: Int, spread: Float = 0.025) -> Int {
        let person = centers.count
        centers.append(SyntheticFaces.center(using: &random))
        addFaces(of: person, count: count, spread: spread)
        return person
    }

    /// Adds `count` more faces of an existing person; returns their keys.
    @discardableResult
    mutating func addFaces(of person: Int, count: Int, spread: Float = 0.025) -> [FaceKey] {
        (0..<count).map { _ in
            let key = Self.key(faces.count)
            faces.append(DescribedFace(key: key, descriptor: SyntheticFaces.face(near: centers[person], spread: spread, using: &random)))
            truth[key] = person
            return key
        }
    }

    /// Adds a face of nobody else (its own random center).
    @discardableResult
    mutating func addStranger() -> FaceKey {
        let key = Self.key(faces.count)
        faces.append(DescribedFace(key: key, descriptor: SyntheticFaces.center(using: &random)))
        return key
    }

    /// Keys drawn from the person, sorted.
    func keys(of person: Int) -> [FaceKey] { truth.filter { $0.value == person }.map(\.key).sorted() }

    /// A stable key: a hash-like string per face, each in its own "image" (faces of one image are
    /// different people to the grouping, and one person's faces here are drawn in a row).
    static func key(_ index: Int) -> FaceKey {
        FaceKey(contentHash: String(format: "img%05d", index), faceNumber: 0)
    }

    /// The faces in another order.
    func shuffled(seed: UInt64) -> [DescribedFace] {
        var generator = SeededRandom(seed: seed)
        return faces.shuffled(using: &generator)
    }
}
