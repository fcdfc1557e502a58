/// Names one detected face for good: the content hash of its image and its number in that image.
///
/// Keys order by hash, then number. Grouping uses that order everywhere a choice must not depend
/// on the order faces arrived in (ties between equally near faces, which face names a person).
///
/// ```swift
/// let key = FaceKey(contentHash: "9f86d081884c7d65", faceNumber: 0)
/// ```
public struct FaceKey: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The content hash of the image the face is in. Usage: `key.contentHash`
    public var contentHash: String
    /// The face's number within its image (0 for the first). Usage: `key.faceNumber`
    public var faceNumber: Int

    /// Usage: `FaceKey(contentHash: hash, faceNumber: 2)`
    public init(contentHash: String, faceNumber: Int) {
        self.contentHash = contentHash
        self.faceNumber = faceNumber
    }

    /// Usage: `faces.sorted()` (by hash, then face number)
    public static func < (lhs: FaceKey, rhs: FaceKey) -> Bool {
        if lhs.contentHash != rhs.contentHash { return lhs.contentHash.utf8.lexicographicallyPrecedes(rhs.contentHash.utf8) }
        return lhs.faceNumber < rhs.faceNumber
    }

    /// `hash#number`. Usage: `print(key)`
    public var description: String { "\(contentHash)#\(faceNumber)" }
}

/// A face to group: its key, its descriptor (128 floats for dlib's recognition network) and the
/// size of its box.
///
/// ```swift
/// let face = DescribedFace(key: key, descriptor: descriptor, side: 212)
/// ```
public struct DescribedFace: Sendable, Hashable {
    /// Usage: `face.key`
    public var key: FaceKey
    /// The recognition network's output for the face. Usage: `face.descriptor.count`
    public var descriptor: [Float]
    /// The shorter side of the face's box in pixels of the photo; nil when not known (then the
    /// face is grouped whatever its size; see ``GroupingParameters/minimumFaceSide``).
    /// Usage: `face.side`
    public var side: Double?

    /// Usage: `DescribedFace(key: key, descriptor: descriptor, side: 96)`
    public init(key: FaceKey, descriptor: [Float], side: Double? = nil) {
        self.key = key
        self.descriptor = descriptor
        self.side = side
    }
}
