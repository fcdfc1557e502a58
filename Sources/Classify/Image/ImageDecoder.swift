import Foundation

/// Decodes JPEG, PNG, HEIC/HEIF, AVIF, WebP, TIFF, GIF and camera raw files (their embedded
/// preview) into upright 8-bit RGB pixels.
///
/// The format is recognised from the bytes (``ImageSignature``); each has its decoder in
/// `Image/Formats/`. When the caller only needs a minimum short side, JPEGs (and camera raw
/// previews) are decoded at 1/2, 1/4 or 1/8 size in the DCT domain, lossy WebPs scaled by
/// libwebp, and PNG, TIFF, HEIC and AVIF reduced by the same factors (block means) as their rows
/// are decoded, so no full-size RGB buffer is held: memory then depends on the requested size,
/// not on the photo's (libheif still decodes a HEIC or AVIF picture whole, or a grid's one tile at
/// a time). Orientation (EXIF in JPEG, PNG and WebP, the
/// TIFF tag, a raw file's flip, HEIF's irot/imir/clap) is applied; transparency is composited
/// onto white; animations give their first frame, multi-page TIFFs their first page. Images
/// whose header declares more than `maximumPixelCount` pixels are rejected before any large
/// allocation.
///
/// Usage:
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url, minimumShortSide: 256)
/// ```
public struct ImageDecoder: Sendable {
    /// Largest accepted full-size pixel count (width x height from the header); larger images
    /// fail with `.tooLarge` before any pixel memory is allocated.
    /// Usage: `decoder.maximumPixelCount = 50_000_000`
    public var maximumPixelCount = 100_000_000
    /// Largest file `decode(contentsOf:)` reads, in bytes; larger files fail with `.fileTooLarge`.
    /// Usage: `decoder.maximumFileByteCount = 64 * 1024 * 1024`
    public var maximumFileByteCount = 512 * 1024 * 1024

    /// Creates a decoder with the default limits (100 megapixels, 512 MiB files).
    ///
    /// Usage: `var decoder = ImageDecoder(); decoder.maximumPixelCount = 50_000_000`
    public init() {}

    /// The formats this build can decode. HEIC and AVIF depend on the decoders the system's
    /// libheif was built with (``ImageDecodingError/missingDecoder(_:)`` names a missing one);
    /// the others are always here.
    ///
    /// Usage: `if !ImageDecoder.availableFormats.contains(.heif) { print("no HEIC decoder") }`
    public static var availableFormats: Set<ImageFormat> {
        var formats = Set(ImageFormat.allCases)
        if !HEIFDecoding.hasDecoder { formats.remove(.heif) }
        if !AVIFDecoding.hasDecoder { formats.remove(.avif) }
        return formats
    }

    /// Decodes an in-memory image (`Data`, `[UInt8]`, `UnsafeRawBufferPointer`, ...).
    ///
    /// `minimumShortSide`: when set, a JPEG (or a raw file's JPEG preview), lossy WebP, PNG, TIFF,
    /// HEIC or AVIF is decoded at the smallest of 1/8, 1/4, 1/2 and full size whose shorter side
    /// is still at least this many pixels; GIF and lossless WebP decode at full size. nil decodes
    /// at full size.
    ///
    /// Usage: `let image = try decoder.decode(data, minimumShortSide: 256)`
    public func decode(
        _ data: some ContiguousBytes, minimumShortSide: Int? = nil
    ) throws(ImageDecodingError) -> DecodedImage {
        try decodeUnoriented(data, minimumShortSide: minimumShortSide).oriented()
    }

    /// Reads and decodes the image file at `url`. Directories, FIFOs and devices, empty,
    /// unreadable or missing files and files over `maximumFileByteCount` fail with a
    /// read-stage error; reading never blocks on a FIFO.
    ///
    /// Usage: `let image = try decoder.decode(contentsOf: URL(fileURLWithPath: "cat.jpg"))`
    public func decode(
        contentsOf url: URL, minimumShortSide: Int? = nil
    ) throws(ImageDecodingError) -> DecodedImage {
        let bytes = try ImageFileReader.contents(of: url, byteLimit: maximumFileByteCount)
        return try decode(bytes, minimumShortSide: minimumShortSide)
    }

    /// Reads the file at `url` with the same checks as `decode(contentsOf:)` (regular file, not
    /// empty, at most `maximumFileByteCount`, never blocking on a FIFO), without decoding it, so a
    /// caller can hash the bytes and decode them from memory with one read.
    ///
    /// Usage: `let bytes = try decoder.readFile(at: url); let image = try decoder.decode(bytes)`
    public func readFile(at url: URL) throws(ImageDecodingError) -> [UInt8] {
        try ImageFileReader.contents(of: url, byteLimit: maximumFileByteCount)
    }

    /// The format's decode before orientation, for `region` only where its codec can cut.
    func decodeUnoriented(
        _ data: some ContiguousBytes, minimumShortSide: Int?, region: PixelRect? = nil
    ) throws(ImageDecodingError) -> UnorientedImage {
        let result = data.withUnsafeBytes { bytes in
            Result { () throws(ImageDecodingError) -> UnorientedImage in
                switch ImageSignature(bytes: bytes) {
                case .format(let format)?:
                    let request = DecodingRequest(minimumShortSide: minimumShortSide, maximumPixelCount: maximumPixelCount, region: region)
                    return try format.decoder.decode(bytes, request)
                case .unsupported(let name)?:
                    throw .unsupportedFormat(name)
                case nil:
                    throw .unrecognizedFormat
                }
            }
        }
        return try result.get()
    }
}
