import Foundation

/// A face stored with an image: its box in pixels of the upright image (top-left origin) and the
/// detector's confidence.
///
/// Stored in `image_faces.faces` as 20 bytes per face, highest confidence first: x, y, width,
/// height and confidence as little-endian Float32.
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

    /// Usage: `IndexedFace(x: 0, y: 0, width: 40, height: 40, confidence: 0.9)`
    public init(x: Double, y: Double, width: Double, height: Double, confidence: Double) {
        self.x = x; self.y = y; self.width = width; self.height = height; self.confidence = confidence
    }

    package static let byteCount = 20

    /// The blob for `faces` (sorted by confidence, highest first).
    package static func encode(_ faces: [IndexedFace]) -> Data {
        var data = Data(capacity: faces.count * byteCount)
        for face in faces.sorted(by: { $0.confidence > $1.confidence }) {
            for value in [face.x, face.y, face.width, face.height, face.confidence] {
                withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { data.append(contentsOf: $0) }
            }
        }
        return data
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
