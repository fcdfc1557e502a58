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
/// A thorough look (MTCNN after BlazeFace, `index --faces thorough`) at an image whose faces are
/// stored adds the faces it found that are not among them after them (`following`): the stored
/// faces keep their numbers, which corrections about people refer to.
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
    /// Whether the thorough detector looked (stored, so a later thorough run passes the image by).
    /// Usage: `found.thorough`
    public var thorough: Bool
    /// The faces the image holds, as read, which `faces` follow; nil: the image holds none (faces
    /// were never looked for in it). The faces are added only while the image holds exactly these
    /// and has not been looked at thoroughly.
    /// Usage: `FacesFound(path: p, contentHash: h, faces: missed, thorough: true, following: stored.faces)`
    public var following: [IndexedFace]?

    /// Usage: `FacesFound(path: "/photos/a.jpg", contentHash: hash, faces: [])`
    public init(path: String, contentHash: String, faces: [IndexedFace], thorough: Bool = false, following: [IndexedFace]? = nil) {
        self.path = path; self.contentHash = contentHash; self.faces = faces
        self.thorough = thorough; self.following = following
    }

    /// The face label's confidence: the best face's, nil when no face was found, or when the
    /// faces follow stored ones and none was added (the image's labels stay as they are).
    package var faceLabelConfidence: Double? {
        if let following { return faces.isEmpty ? nil : (following + faces).map(\.confidence).max() }
        return faces.map(\.confidence).max()
    }

    /// The `image_faces` row to write for an image whose row is `stored` (nil: it has none), or
    /// nil when these faces do not go to it: it has faces already (and `following` is nil), or
    /// its faces are not `following`, or it was looked at thoroughly already.
    package func row(replacing stored: FaceRow?) -> FaceRow? {
        guard let following else {
            guard stored == nil else { return nil }
            return FaceRow(faces: faces, thorough: thorough)
        }
        guard let stored, !stored.thorough, stored.faces == IndexedFace.encode(ordered: following) else { return nil }
        let added = IndexedFace.storageOrder(faces)
        let descriptors: Data? =
            if added.isEmpty { stored.descriptors }
            else if stored.count == 0 { IndexedFace.encodeDescriptors(ordered: added) }
            // Stored descriptors grow only by one per added face; otherwise all are described again.
            else if let old = stored.descriptors, added.allSatisfy({ $0.descriptor != nil }) {
                IndexedFace.encodeDescriptors(ordered: added).map { old + $0 }
            } else { nil }
        return FaceRow(count: stored.count + added.count, faces: stored.faces + IndexedFace.encode(ordered: added), descriptors: descriptors, thorough: thorough)
    }
}

/// One image's `image_faces` row: face count, faces and descriptors blobs (see ``IndexedFace``),
/// and whether the thorough detector looked.
package struct FaceRow: Sendable, Hashable {
    package var count: Int
    package var faces: Data
    package var descriptors: Data?
    package var thorough: Bool

    package init(count: Int, faces: Data, descriptors: Data?, thorough: Bool) {
        self.count = count; self.faces = faces; self.descriptors = descriptors; self.thorough = thorough
    }

    /// The row that stores `faces` (in storage order, their descriptors beside them).
    package init(faces: [IndexedFace], thorough: Bool) {
        self.init(count: faces.count, faces: IndexedFace.encode(faces), descriptors: IndexedFace.encodeDescriptors(faces), thorough: thorough)
    }
}
