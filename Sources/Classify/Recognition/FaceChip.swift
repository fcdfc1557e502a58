import Foundation

/// The aligned face image dlib's recognition network reads: the face turned upright, scaled and
/// centered on its five landmarks (dlib's `get_face_chip_details` and `extract_image_chip`).
///
/// ```swift
/// let points = landmarkModel.landmarks(in: image, box: face.box)
/// if let chip = FaceChip.extract(from: image, landmarks: points) { ... }   // 150x150 RGB
/// ```
public enum FaceChip {
    /// Where dlib puts the five landmarks in a unit face (shape predictor order).
    static let referencePoints = [
        FacePoint(x: 0.8595674595992, y: 0.2134981538014), FacePoint(x: 0.6460604764104, y: 0.2289674387677),
        FacePoint(x: 0.1205750620789, y: 0.2137274526848), FacePoint(x: 0.3340850613712, y: 0.2290642403242),
        FacePoint(x: 0.4901123135679, y: 0.6277975316475),
    ]

    /// The `size` x `size` chip, with `padding` (a fraction of the face) around the face; nil when
    /// there are not five finite landmarks or they all coincide. Pixels whose neighbourhood leaves
    /// the image are black. Unlike dlib, faces more than twice the chip's size are sampled directly
    /// rather than through an image pyramid (so they alias a little more).
    ///
    /// Usage: `let chip = FaceChip.extract(from: image, landmarks: points, size: 150, padding: 0.25)`
    public static func extract(from image: DecodedImage, landmarks: [FacePoint], size: Int = 150, padding: Double = 0.25) -> DecodedImage? {
        guard landmarks.count == referencePoints.count, landmarks.allSatisfy({ $0.x.isFinite && $0.y.isFinite }),
            (1...4096).contains(size), padding >= 0, padding.isFinite, image.pixels.count >= image.width * image.height * 3
        else { return nil }
        let side = Double(size)
        let chipPoints = referencePoints.map {
            FacePoint(x: side * (padding + $0.x) / (2 * padding + 1), y: side * (padding + $0.y) / (2 * padding + 1))
        }
        // Landmarks that all coincide give a scale of 0: no face to cut.
        guard let placement = SimilarityTransform.fitting(chipPoints, to: landmarks), placement.scale > 0,
            placement.scale.isFinite
        else { return nil }
        // dlib's extraction square: centered on the chip center's image, side size * scale - 1,
        // turned by the angle; chip pixels (0, 0), (size-1, 0), (0, size-1) go to its corners.
        let center = placement.applied(to: FacePoint(x: side / 2, y: side / 2))
        let half = (side * placement.scale - 1) / 2
        let cosine = cos(placement.angle), sine = sin(placement.angle)
        func corner(_ dx: Double, _ dy: Double) -> FacePoint {
            FacePoint(x: center.x + cosine * dx - sine * dy, y: center.y + sine * dx + cosine * dy)
        }
        let origin = corner(-half, -half), right = corner(half, -half), down = corner(-half, half)
        let last = Double(max(size - 1, 1))
        let stepX = FacePoint(x: (right.x - origin.x) / last, y: (right.y - origin.y) / last)
        let stepY = FacePoint(x: (down.x - origin.x) / last, y: (down.y - origin.y) / last)
        var pixels = [UInt8](repeating: 0, count: size * size * 3)
        image.pixels.withUnsafeBufferPointer { source in
            pixels.withUnsafeMutableBufferPointer { chip in
                for row in 0..<size {
                    for column in 0..<size {
                        let x = origin.x + Double(column) * stepX.x + Double(row) * stepY.x
                        let y = origin.y + Double(column) * stepX.y + Double(row) * stepY.y
                        sampleBilinear(source, width: image.width, height: image.height, x: x, y: y, into: chip, at: (row * size + column) * 3)
                    }
                }
            }
        }
        return DecodedImage(width: size, height: size, pixels: pixels, format: image.format)
    }

    /// Bilinear interpolation of the four pixels around (x, y) of a `width` x `height` RGB
    /// picture, each channel truncated like dlib's; left black when any of the four is outside it.
    private static func sampleBilinear(
        _ image: UnsafeBufferPointer<UInt8>, width: Int, height: Int, x: Double, y: Double, into pixels: UnsafeMutableBufferPointer<UInt8>, at offset: Int
    ) {
        let left = x.rounded(.down), top = y.rounded(.down)
        guard left >= 0, top >= 0, left + 1 < Double(width), top + 1 < Double(height) else { return }
        let fx = x - left, fy = y - top
        let base = (Int(top) * width + Int(left)) * 3, below = base + width * 3
        for channel in 0..<3 {
            let upper = (1 - fx) * Double(image[base + channel]) + fx * Double(image[base + 3 + channel])
            let lower = (1 - fx) * Double(image[below + channel]) + fx * Double(image[below + 3 + channel])
            pixels[offset + channel] = UInt8(min(255, max(0, ((1 - fy) * upper + fy * lower).rounded(.down))))
        }
    }
}
