import Classify
import Foundation

/// A recall set for face detectors, built in memory from real photos: the faces of each photo
/// (what the reference detectors find in it at its own size, less the ones a person rejected on
/// review) and, for each face and each wanted size, a 4:3 canvas that crops and pads the photo
/// (mid-grey border, nothing resampled) so the face's size is that fraction of the canvas's
/// short side. Nothing is written to disk but the review crops one asks for.
///
/// ```swift
/// let faces = FaceRecallSet.TruthFace.find(in: image, file: "a.jpg", detectors: [mtcnn, blazeFace])
/// let canvas = FaceRecallSet.canvas(from: image, face: faces[0], fraction: 0.05)
/// ```
package enum FaceRecallSet {
    /// A face of a source photo, in its pixels.
    package struct TruthFace: Sendable {
        package var file: String
        package var box: PixelRect
        /// Which reference detectors found it (their `Kind` raw values).
        package var foundBy: [String]
        /// The face's size: the geometric mean of the box's sides.
        package var size: Double { (box.width * box.height).squareRoot() }

        /// Every face any of `detectors` finds in `image`, merged across detectors by
        /// `matches` (the first detector's box kept).
        package static func find(in image: DecodedImage, file: String, detectors: [FaceDetector]) throws -> [TruthFace] {
            var faces: [TruthFace] = []
            for detector in detectors {
                for face in try detector.detect(in: image).faces {
                    if let index = faces.firstIndex(where: { FaceRecallSet.matches($0.box, face.pixelBoundingBox) }) {
                        faces[index].foundBy.append(detector.model.kind.rawValue)
                    } else {
                        faces.append(TruthFace(file: file, box: face.pixelBoundingBox, foundBy: [detector.model.kind.rawValue]))
                    }
                }
            }
            return faces
        }
    }

    /// Whether a detected box is the same face as a reference box: IoU at least 0.3, or each box's
    /// center inside the other (detectors draw a face's extent differently: MTCNN's boxes reach
    /// the chin and brow, BlazeFace's are square).
    package static func matches(_ a: PixelRect, _ b: PixelRect) -> Bool {
        let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let union = a.width * a.height + b.width * b.height - w * h
        if union > 0, w * h / union >= 0.3 { return true }
        func inside(_ p: (Double, Double), _ r: PixelRect) -> Bool { p.0 >= r.x && p.0 <= r.x + r.width && p.1 >= r.y && p.1 <= r.y + r.height }
        return inside((a.x + a.width / 2, a.y + a.height / 2), b) && inside((b.x + b.width / 2, b.y + b.height / 2), a)
    }

    /// A landscape 4:3 canvas whose short side is `face.size / fraction`, cut from `image` around
    /// the face (its center placed at a position drawn from `seed`, within the middle 70% of the
    /// canvas), padded with grey where the photo ends; and the face's box in the canvas.
    package static func canvas(from image: DecodedImage, face: TruthFace, fraction: Double, seed: UInt64) -> (image: DecodedImage, box: PixelRect) {
        let height = max(16, Int((face.size / fraction).rounded()))
        let width = height * 4 / 3
        var state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1
        func unit() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(state >> 11) / Double(1 << 53)
        }
        let centerX = face.box.x + face.box.width / 2, centerY = face.box.y + face.box.height / 2
        let left = Int((centerX - Double(width) * (0.15 + 0.7 * unit())).rounded())
        let top = Int((centerY - Double(height) * (0.15 + 0.7 * unit())).rounded())
        var pixels = [UInt8](repeating: 128, count: width * height * 3)
        let x0 = max(0, left), x1 = min(image.width, left + width)
        if x1 > x0 {
            for y in max(0, top)..<min(image.height, top + height) {
                let source = (y * image.width + x0) * 3, target = ((y - top) * width + (x0 - left)) * 3
                pixels.replaceSubrange(target..<(target + (x1 - x0) * 3), with: image.pixels[source..<(source + (x1 - x0) * 3)])
            }
        }
        let box = PixelRect(x: face.box.x - Double(left), y: face.box.y - Double(top), width: face.box.width, height: face.box.height)
        return (DecodedImage(width: width, height: height, pixels: pixels, format: .png), box)
    }

    /// The part of `image` around `box` (twice its size), for a person to review.
    package static func reviewCrop(of image: DecodedImage, box: PixelRect) -> DecodedImage {
        let side = max(box.width, box.height) * 2
        let x0 = max(0, Int(box.x + box.width / 2 - side / 2)), y0 = max(0, Int(box.y + box.height / 2 - side / 2))
        let x1 = min(image.width, Int(box.x + box.width / 2 + side / 2)), y1 = min(image.height, Int(box.y + box.height / 2 + side / 2))
        guard x1 > x0, y1 > y0 else { return image }
        var pixels: [UInt8] = []
        pixels.reserveCapacity((x1 - x0) * (y1 - y0) * 3)
        for y in y0..<y1 { pixels += image.pixels[((y * image.width + x0) * 3)..<((y * image.width + x1) * 3)] }
        return DecodedImage(width: x1 - x0, height: y1 - y0, pixels: pixels, format: .png)
    }
}
