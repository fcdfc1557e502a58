import Foundation

/// A face stored with an image: its box in pixels of the upright image (top-left origin), the
/// detector's confidence and, once recognition has run, its 128-d descriptor (who the face is, as
/// numbers: see `FaceRecognizer`).
///
/// Stored in `image_faces.faces` as 20 bytes per face, highest confidence first (faces a later
/// thorough look adds follow, so the stored faces keep their numbers): x, y, width,
/// height and confidence as little-endian Float32; the descriptors in `image_faces.descriptors`,
/// in the same order, 128 little-endian Float16 per face (all zero for a face no chip could be cut
/// from), NULL while recognition has not run on the image.
///
/// Usage: `let face = IndexedFace(x: 120, y: 80, width: 64, height: 64, confidence: 0.99)`
public struct IndexedFace: Sendable, Hashable {
    /// Left edge in pixels. Usage: `face.x`
    public var x: Double
    /// Top edge in pixels. Usage: `face.y`
    public var y: Double
    /// Usage: `face.width`
    public var width: Double
    /// Usage: `face.height`
    public var height: Double
    /// Detector confidence, 0...1. Usage: `face.confidence`
    public var confidence: Double
    /// The box's shorter side, the size people grouping judges a face by. Usage: `face.shorterSide`
    public var shorterSide: Double { min(width, height) }

    /// The face's descriptor (128 values); empty when recognition ran but could not cut a chip
    /// (stored as zeros, read back as nil), nil when recognition has not run.
    /// Usage: `if let a = face.descriptor, let b = other.descriptor { distance(a, b) }`
    public var descriptor: [Float]?
    /// The person the face is in, as the stored grouping of people says; nil when it waits for
    /// one, or people were not grouped. Filled by the index's `faces(forPath:)`, never stored here.
    /// Usage: `face.person?.name ?? "unnamed"`
    public var person: FacePerson?

    /// Usage: `IndexedFace(x: 0, y: 0, width: 40, height: 40, confidence: 0.9)`
    public init(x: Double, y: Double, width: Double, height: Double, confidence: Double, descriptor: [Float]? = nil) {
        self.x = x; self.y = y; self.width = width; self.height = height; self.confidence = confidence
        self.descriptor = descriptor
    }

    package static let byteCount = 20
    /// Values per stored descriptor.
    package static let descriptorLength = 128

    /// The order faces are stored in: highest confidence first (ties keep their order).
    package static func storageOrder(_ faces: [IndexedFace]) -> [IndexedFace] {
        faces.enumerated().sorted { ($0.element.confidence, -$0.offset) > ($1.element.confidence, -$1.offset) }.map(\.element)
    }

    /// The blob for `faces` (in ``storageOrder(_:)``).
    package static func encode(_ faces: [IndexedFace]) -> Data {
        encode(ordered: storageOrder(faces))
    }

    /// The blob for `faces` in the order given (faces a thorough look adds follow those stored).
    package static func encode(ordered faces: [IndexedFace]) -> Data {
        var data = Data(capacity: faces.count * byteCount)
        for face in faces {
            for value in [face.x, face.y, face.width, face.height, face.confidence] {
                withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return data
    }

    /// The blob for `image_faces.descriptors` (in ``storageOrder(_:)``; zeros for a face without
    /// a descriptor): nil when recognition did not run (no face has a descriptor, not even an
    /// empty one) or there are no faces.
    package static func encodeDescriptors(_ faces: [IndexedFace]) -> Data? {
        encodeDescriptors(ordered: storageOrder(faces))
    }

    /// The descriptors blob for `faces` in the order given (see ``encodeDescriptors(_:)``).
    package static func encodeDescriptors(ordered: [IndexedFace]) -> Data? {
        guard ordered.contains(where: { $0.descriptor != nil }) else { return nil }
        var data = Data(capacity: ordered.count * descriptorLength * 2)
        for face in ordered {
            let values = face.descriptor?.count == descriptorLength ? face.descriptor! : [Float](repeating: 0, count: descriptorLength)
            for value in values {
                withUnsafeBytes(of: Float16(value).bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return data
    }

    /// `faces` (decoded from `image_faces.faces`) with their descriptors from a
    /// `image_faces.descriptors` blob; unchanged when the blob is nil or not one descriptor per face.
    package static func attaching(_ descriptors: Data?, to faces: [IndexedFace]) -> [IndexedFace] {
        guard let descriptors, descriptors.count == faces.count * descriptorLength * 2 else { return faces }
        return zip(faces, decodeDescriptors(descriptors)).map { face, descriptor in
            var face = face
            face.descriptor = descriptor
            return face
        }
    }

    /// `faces` with the people of `people` (by face number, from 0).
    package static func naming(_ faces: [IndexedFace], _ people: [Int: FacePerson]) -> [IndexedFace] {
        faces.enumerated().map { number, face in
            var face = face
            face.person = people[number]
            return face
        }
    }

    /// The descriptors of an `image_faces.descriptors` blob, one per whole descriptor in it; nil
    /// for a face stored as zeros (recognition ran but could not cut a chip).
    package static func decodeDescriptors(_ descriptors: Data) -> [[Float]?] {
        let stride = descriptorLength * 2
        return descriptors.withUnsafeBytes { raw in
            (0..<(raw.count / stride)).map { index -> [Float]? in
                let start = index * stride
                let values = (0..<descriptorLength).map { i in
                    Float(Float16(bitPattern: UInt16(raw[start + 2 * i]) | UInt16(raw[start + 2 * i + 1]) << 8))
                }
                return values.allSatisfy { $0 == 0 } ? nil : values
            }
        }
    }

    /// The faces of a blob; nil when its size is not a whole number of faces.
    package static func decode(_ data: Data) -> [IndexedFace]? {
        guard data.count % byteCount == 0 else { return nil }
        let bytes = [UInt8](data)
        func float(_ offset: Int) -> Double {
            var bits: UInt32 = 0
            for i in 0..<4 { bits |= UInt32(bytes[offset + i]) << (8 * i) }
            return Double(Float(bitPattern: bits))
        }
        return stride(from: 0, to: bytes.count, by: byteCount).map { o in
            IndexedFace(x: float(o), y: float(o + 4), width: float(o + 8), height: float(o + 12), confidence: float(o + 16))
        }
    }
}
