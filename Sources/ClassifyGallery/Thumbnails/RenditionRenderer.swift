import Classify
import Foundation
import TagIndex

/// Makes a rendition of a photo with the library's own decoder (every format Classify reads;
/// JPEGs decoded at 1/2, 1/4 or 1/8 size in the DCT domain when that still covers the target),
/// an antialiased downscale and libjpeg-turbo.
///
/// ```swift
/// let jpeg = try RenditionRenderer().render(.thumbnail, path: "/photos/a.jpg", width: 4000, height: 3000, contentHash: hash)
/// ```
struct RenditionRenderer: Sendable {
    var decoder = ImageDecoder()

    /// The rendition of the file at `path`; `width`/`height` (upright, from the index) choose the
    /// DCT scale, `contentHash` (from the index) says whether the bytes read are those indexed.
    func render(_ rendition: Rendition, path: String, width: Int?, height: Int?, contentHash: String) throws -> RenditionBytes {
        let bytes = try decoder.readFile(at: URL(fileURLWithPath: path))
        let matchesIndex = ContentHash.hex(of: bytes) == contentHash
        let image = try decoder.decode(bytes, minimumShortSide: Self.minimumShortSide(rendition, width: width, height: height))
        let jpeg = try JPEGEncoder(quality: rendition.quality).encode(image.downscaled(toFit: rendition.longSide))
        return RenditionBytes(bytes: jpeg, matchesIndex: matchesIndex)
    }

    /// The short side the decoder must keep so the long side still reaches the rendition's.
    static func minimumShortSide(_ rendition: Rendition, width: Int?, height: Int?) -> Int {
        guard let width, let height, width > 0, height > 0 else { return rendition.longSide }
        let short = min(width, height), long = max(width, height)
        return Int((Double(rendition.longSide) * Double(short) / Double(long)).rounded(.up))
    }
}
