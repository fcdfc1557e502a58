import CClassifyCodecs

/// Compresses decoded images as baseline JPEG with libjpeg-turbo (4:2:0, optimized Huffman tables):
/// for thumbnails and previews of indexed photos.
///
/// Usage:
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url, minimumShortSide: 320)
/// let bytes = try JPEGEncoder(quality: 80).encode(image.downscaled(toFit: 320))
/// ```
public struct JPEGEncoder: Sendable {
    /// Quality from 1 (smallest) to 100 (best); 80 keeps photos free of visible artifacts at
    /// thumbnail sizes. Usage: `encoder.quality = 90`
    public var quality: Int

    /// Creates an encoder; `quality` is clamped to 1...100.
    ///
    /// Usage: `let encoder = JPEGEncoder(quality: 85)`
    public init(quality: Int = 80) {
        self.quality = min(100, max(1, quality))
    }

    /// The JPEG file bytes of `image` (sRGB, no metadata: the pixels are already upright).
    ///
    /// Usage: `try Data(JPEGEncoder().encode(image)).write(to: url)`
    public func encode(_ image: DecodedImage) throws(ImageEncodingError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = cls_message()
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            cls_jpeg_encode_rgb(
                pixels.baseAddress, UInt32(clamping: image.width), UInt32(clamping: image.height),
                Int32(min(100, max(1, quality))), &bytes, &size, &message)
        }
        defer { cls_jpeg_free(bytes) }
        guard status == CLS_OK, let bytes else { throw ImageEncodingError(reason: message.string) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}

/// Why an image could not be encoded, as a sentence.
///
/// Usage: `catch let error as ImageEncodingError { print(error.reason) }`
public struct ImageEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the codec reported.
    /// Usage: `log(error.reason)`
    public var reason: String

    /// Usage: `print(error)`
    public var description: String { "The image could not be encoded as JPEG (\(reason))." }
}
