/// The format of an encoded image. Always recognised from the leading bytes (see
/// ``ImageSignature``), never from a file name extension.
///
/// Usage: `if decoded.format == .heif { ... }`
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF/EXIF), recognised by the start-of-image marker FF D8 FF. Usage: `image.format == .jpeg`
    case jpeg
    /// PNG, recognised by its eight-byte signature. Usage: `image.format == .png`
    case png
    /// HEIF with HEVC coding (HEIC), an ISO-BMFF file whose brand is heic, heix, mif1, ...
    /// Usage: `image.format == .heif`
    case heif
    /// AVIF (AV1 in HEIF), an ISO-BMFF file whose brand is avif or avis. Usage: `image.format == .avif`
    case avif
    /// WebP, a RIFF file of form type WEBP. Usage: `image.format == .webp`
    case webp
    /// TIFF, classic or BigTIFF, either byte order. Usage: `image.format == .tiff`
    case tiff
    /// GIF 87a or 89a. Usage: `image.format == .gif`
    case gif
    /// A camera raw file (CR2, CR3, NEF, ARW, DNG, ORF, RW2, RAF, PEF, ...), of which the
    /// embedded preview is decoded. Usage: `image.format == .raw`
    case raw

    /// The format's usual name ("JPEG", "HEIC", "camera raw").
    /// Usage: `print("decoded a \(image.format)")`
    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        case .heif: "HEIC"
        case .avif: "AVIF"
        case .webp: "WebP"
        case .tiff: "TIFF"
        case .gif: "GIF"
        case .raw: "camera raw"
        }
    }

    /// The file in `Image/Formats/` that decodes this format.
    var decoder: any FormatDecoder.Type {
        switch self {
        case .jpeg: JPEGDecoding.self
        case .png: PNGDecoding.self
        case .heif: HEIFDecoding.self
        case .avif: AVIFDecoding.self
        case .webp: WebPDecoding.self
        case .tiff: CameraRawDecoding.self  // TIFF-based raw files first; plain TIFFs fall through to libtiff
        case .gif: GIFDecoding.self
        case .raw: CameraRawDecoding.self
        }
    }
}
