/// A decoded picture: upright (EXIF orientation already applied), 8-bit RGB.
///
/// Usage:
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url, minimumShortSide: 256)
/// let (r, g, b) = (image.pixels[0], image.pixels[1], image.pixels[2])  // top-left pixel
/// ```
public struct DecodedImage: Sendable, Equatable {
    /// Width of `pixels`, in pixels. Usage: `let rowBytes = image.width * 3`
    public let width: Int
    /// Height of `pixels`, in pixels. Usage: `let isPortrait = image.height > image.width`
    public let height: Int
    /// Interleaved R, G, B bytes, row-major from the top-left; `width * height * 3` bytes.
    /// Usage: `let red = image.pixels[(y * image.width + x) * 3]`
    public let pixels: [UInt8]
    /// The format the bytes were recognised as. Usage: `if image.format == .png { ... }`
    public let format: ImageFormat
    /// Full-size width from the file header, after orientation (so it pairs with `width`).
    /// Usage: `print("\(image.originalWidth)x\(image.originalHeight)")`
    public let originalWidth: Int
    /// Full-size height from the file header, after orientation.
    /// Usage: `let megapixels = image.originalWidth * image.originalHeight / 1_000_000`
    public let originalHeight: Int
    /// `pixels` were decoded at 1/decodeScale of the full size: 1, 2, 4 or 8 (not GIF or lossless WebP).
    /// Usage: `let wasReduced = image.decodeScale > 1`
    public let decodeScale: Int
    /// When, where and with what camera the photo was taken, read from the file's EXIF and
    /// XMP in the same pass as the pixels; empty for formats without it (GIF) or when built
    /// from pixels. Usage: `let taken = image.metadata.dateTaken?.iso8601`
    public let metadata: PhotoMetadata

    /// Wraps already-decoded pixels, e.g. to preprocess an image from another source.
    ///
    /// Usage: `DecodedImage(width: 2, height: 1, pixels: [255, 0, 0, 0, 0, 255], format: .png)`
    public init(
        width: Int, height: Int, pixels: [UInt8], format: ImageFormat,
        originalWidth: Int? = nil, originalHeight: Int? = nil, decodeScale: Int = 1,
        metadata: PhotoMetadata = PhotoMetadata()
    ) {
        precondition(width > 0 && height > 0, "an image needs at least one pixel")
        precondition(pixels.count == width * height * 3, "pixels must hold width * height RGB triples")
        self.width = width
        self.height = height
        self.pixels = pixels
        self.format = format
        self.originalWidth = originalWidth ?? width
        self.originalHeight = originalHeight ?? height
        self.decodeScale = decodeScale
        self.metadata = metadata
    }
}
