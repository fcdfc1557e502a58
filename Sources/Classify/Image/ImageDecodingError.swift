/// Why an image could not be read or decoded. Each case's `description` is a sentence a user
/// can act on; `stage` says whether reading the file or decoding its bytes failed.
///
/// Usage:
/// ```swift
/// do { _ = try ImageDecoder().decode(contentsOf: url) }
/// catch { print("\(error.stage): \(error)") }
/// ```
public enum ImageDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path names a directory, FIFO, socket or device instead of a regular file.
    /// Usage: `if error == .notRegularFile { skip(path) }`
    case notRegularFile
    /// The file could not be opened or read; the payload is the system's reason.
    /// Usage: `if case .unreadable(let reason) = error { print(reason) }`
    case unreadable(String)
    /// The file has no bytes. Usage: `if error == .empty { retryLater(path) }`
    case empty
    /// The file is larger than the decoder's read limit.
    /// Usage: `if case .fileTooLarge(let size, _) = error { print(size) }`
    case fileTooLarge(byteCount: Int, limit: Int)
    /// The bytes are not an image in any format the decoder knows (also for empty data, text
    /// and random bytes). Usage: `if error == .unrecognizedFormat { skip(path) }`
    case unrecognizedFormat
    /// An image format that is recognised but not decoded (the payload names it: "JPEG 2000").
    /// Usage: `if case .unsupportedFormat(let name) = error { print(name) }`
    case unsupportedFormat(String)
    /// The format is supported, but the system library was built without the decoder it needs
    /// (a libheif without HEVC or AV1); the payload says which.
    /// Usage: `if case .missingDecoder(let detail) = error { print(detail) }`
    case missingDecoder(String)
    /// A camera raw file without an embedded preview that can be classified (none, an
    /// unextractable kind, or one too small); the payload says which.
    /// Usage: `if case .noPreview(let detail) = error { print(detail) }`
    case noPreview(String)
    /// The image data stops before the image is complete; the payload is the codec's detail.
    /// Usage: `if case .truncated = error { redownload(path) }`
    case truncated(String)
    /// The image data is damaged (bad checksum, invalid entropy code, malformed header, ...);
    /// the payload is the codec's detail. Usage: `if case .corrupt(let detail) = error { print(detail) }`
    case corrupt(String)
    /// The image header declares more pixels than allowed (full-size dimensions, limit).
    /// Usage: `if case .tooLarge(let width, let height, _) = error { print(width, height) }`
    case tooLarge(width: Int, height: Int, limit: Int)
    /// A well-formed image using something this decoder cannot handle (or memory ran out).
    /// Usage: `if case .unsupported(let detail) = error { print(detail) }`
    case unsupported(String)

    /// "read" when the file itself could not be read, "decode" when its contents were bad.
    /// Usage: `log(stage: error.stage, message: error.description)`
    public var stage: String {
        switch self {
        case .notRegularFile, .unreadable, .empty, .fileTooLarge:
            "read"
        case .unrecognizedFormat, .unsupportedFormat, .missingDecoder, .noPreview, .truncated, .corrupt, .tooLarge,
            .unsupported:
            "decode"
        }
    }

    /// A sentence saying what went wrong and what the user can do about it.
    /// Usage: `print(error.description)`
    public var description: String {
        switch self {
        case .notRegularFile:
            "The path is not a regular file (it is a directory, pipe, socket or device); pass the path of an image file."
        case .unreadable(let reason):
            "The file could not be read (\(reason)); check that it exists and that you may read it."
        case .empty:
            "The file is empty (0 bytes); it was probably not written or copied completely."
        case .fileTooLarge(let byteCount, let limit):
            "The file is \(byteCount) bytes, more than the \(limit)-byte limit for images; use a smaller file."
        case .unrecognizedFormat:
            "The data is not an image in a format this tool reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF, camera raw); convert it to one of those first."
        case .unsupportedFormat(let name):
            "Unsupported format: \(name); convert it to JPEG, PNG, HEIC, WebP or TIFF to classify it."
        case .missingDecoder(let detail):
            "The decoder for this format is missing (\(detail)); install a libheif built with it (Debian's libheif1 has libde265 for HEIC and dav1d for AVIF) or convert the file to JPEG."
        case .noPreview(let detail):
            "The camera raw file has no usable embedded preview (\(detail)); export it as JPEG or TIFF from a raw converter to classify it."
        case .truncated(let detail):
            "The image data ends too early (\(detail)); the file was probably cut off while downloading or copying."
        case .corrupt(let detail):
            "The image data is damaged (\(detail)); re-export or re-download the file."
        case .tooLarge(let width, let height, let limit):
            "The image is \(width)x\(height) pixels, more than the limit of \(limit) pixels; downscale it or raise ImageDecoder.maximumPixelCount."
        case .unsupported(let detail):
            "The image uses a feature this decoder does not support (\(detail)); convert it to an ordinary RGB JPEG or PNG."
        }
    }
}
