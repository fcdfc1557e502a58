import Classify
import Foundation
import TagIndex

/// A face cut out of its photo for the People pages: a square around the stored box with a margin,
/// at most ``side`` pixels, as a JPEG. The photo is decoded just large enough (JPEGs at a DCT
/// scale) that the face spans the crop; the box is in pixels of the upright image, as stored, so a
/// file whose bytes are no longer those indexed is refused (409) instead of cut at a box that
/// belongs to another picture.
///
/// ```swift
/// let jpeg = try FaceCropRenderer().render(face, path: path, width: 4000, height: 3000, contentHash: hash)
/// ```
struct FaceCropRenderer: Sendable {
    /// The crop's side in pixels.
    static let side = 160
    /// The crop spans the face's larger side times this.
    static let margin = 1.6

    var decoder = ImageDecoder()

    /// The crop of `face` from the file at `path`; `width`/`height` (upright, from the index)
    /// choose the DCT scale, `contentHash` (from the index) must be the bytes' own.
    func render(_ face: IndexedFace, path: String, width: Int?, height: Int?, contentHash: String?) throws -> [UInt8] {
        let bytes = try decoder.readFile(at: URL(fileURLWithPath: path))
        if let contentHash, ContentHash.hex(of: bytes) != contentHash {
            throw GalleryError(.conflict, "\(path) has changed since it was indexed; index it again to find its faces.")
        }
        var shortSide: Int?
        if let width, let height, width > 0, height > 0, face.width > 0 {
            let needed = Double(Self.side) * Double(min(width, height)) / (max(face.width, face.height) * Self.margin)
            shortSide = min(min(width, height), Int(needed.rounded(.up)))
        }
        let image = try decoder.decode(bytes, minimumShortSide: shortSide)
        // The stored box is in the upright image's pixels: scale it to the decoded size.
        let scale = width.map { Double(image.width) / Double(max(1, $0)) } ?? 1
        let span = max(face.width, face.height) * Self.margin * scale
        let side = max(1, min(Int(span.rounded()), image.width, image.height))
        let centerX = (face.x + face.width / 2) * scale, centerY = (face.y + face.height / 2) * scale
        let left = min(max(0, Int((centerX - Double(side) / 2).rounded())), image.width - side)
        let top = min(max(0, Int((centerY - Double(side) / 2).rounded())), image.height - side)
        var pixels = [UInt8]()
        pixels.reserveCapacity(side * side * 3)
        for row in top..<(top + side) {
            let start = (row * image.width + left) * 3
            pixels += image.pixels[start..<(start + side * 3)]
        }
        let crop = DecodedImage(width: side, height: side, pixels: pixels, format: image.format)
        return try JPEGEncoder(quality: 85).encode(crop.downscaled(toFit: Self.side))
    }
}
