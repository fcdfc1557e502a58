import Classify
import TagIndex

extension IndexedFace {
    /// The faces a detector found, as the index stores them, each with its descriptor from
    /// `descriptors` (one per face, in the detector's order; a face without one gets an empty
    /// descriptor, stored as zeros, so it is not described again); nil: recognition did not run.
    ///
    /// Usage: `let faces = IndexedFace.faces(of: found, descriptors: recognizer.descriptors(for: found, decoding: bytes, with: decoder))`
    static func faces(of found: FaceDetectionResult, descriptors: [[Float]?]?) -> [IndexedFace] {
        found.faces.enumerated().map { index, face in
            let box = face.pixelBoundingBox
            let descriptor = descriptors.map { index < $0.count ? $0[index] ?? [] : [] }
            return IndexedFace(x: box.x, y: box.y, width: box.width, height: box.height, confidence: Double(face.confidence), descriptor: descriptor)
        }
    }

    /// The face's box in pixels of the upright full-size photo.
    ///
    /// Usage: `let boxes = stored.map(\.pixelRect)`
    var pixelRect: PixelRect { PixelRect(x: x, y: y, width: width, height: height) }
}
