import Foundation

/// A classified image of the index, by stored path and content hash: what an indexer needs to
/// add what an earlier version did not store (faces, metadata) without classifying it again.
///
/// Usage: `for image in try index.imagesWithoutFaces(limit: 256) { print(image.path) }`
public struct StoredImageFile: Sendable, Hashable {
    /// The stored path. Usage: `URL(fileURLWithPath: image.path)`
    public var path: String
    /// The content hash stored with it (what is added is stored only while the file still has it).
    /// Usage: `image.contentHash`
    public var contentHash: String

    /// Usage: `StoredImageFile(path: "/photos/a.jpg", contentHash: hash)`
    public init(path: String, contentHash: String) {
        self.path = path; self.contentHash = contentHash
    }
}

/// A stored image by path and content hash: what backfills page through (``StoredImageFile``,
/// ``StoredFaces``).
///
/// Usage: `func read(_ image: some StoredContent) -> Bool { ContentHash.hex(of: bytes) == image.contentHash }`
public protocol StoredContent: Sendable {
    /// The stored path. Usage: `URL(fileURLWithPath: image.path)`
    var path: String { get }
    /// The content hash stored with it. Usage: `image.contentHash`
    var contentHash: String { get }
}

extension StoredImageFile: StoredContent {}

/// Faces found in an indexed image after it was classified, to be added to it
/// (``SQLiteIndex/addFaces(_:)``): the image gets its faces and, when any was found, the
/// ``SQLiteIndex/faceLabel`` at its best face's confidence; its other labels stay as they are.
///
/// Usage: `try index.addFaces([FacesFound(path: image.path, contentHash: image.contentHash, faces: faces)])`
public struct FacesFound: Sendable, Hashable {
    /// The stored path. Usage: `found.path`
    public var path: String
    /// The content the faces were found in; an image whose stored hash differs is left alone.
    /// Usage: `found.contentHash`
    public var contentHash: String
    /// Highest confidence first; empty: looked for, none found. Usage: `found.faces.count`
    public var faces: [IndexedFace]

    /// Usage: `FacesFound(path: "/photos/a.jpg", contentHash: hash, faces: [])`
    public init(path: String, contentHash: String, faces: [IndexedFace]) {
        self.path = path; self.contentHash = contentHash; self.faces = faces
    }

    /// The face label's confidence: the best face's, nil when no face was found.
    package var faceLabelConfidence: Double? { faces.map(\.confidence).max() }
}
