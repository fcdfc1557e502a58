/// The container format of an encoded image. Always recognised from the leading bytes
/// (the "magic number"), never from a file name extension.
///
/// Usage: `if decoded.format == .png { ... }`
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// JPEG (JFIF/EXIF), recognised by the start-of-image marker FF D8 FF.
    /// Usage: `image.format == .jpeg`
    case jpeg
    /// PNG, recognised by its eight-byte signature. Usage: `image.format == .png`
    case png

    /// The format's usual name, "JPEG" or "PNG". Usage: `print("decoded a \(image.format)")`
    public var description: String {
        switch self {
        case .jpeg: "JPEG"
        case .png: "PNG"
        }
    }

    /// SOI marker followed by the first byte of the next marker.
    private static let jpegSignature: [UInt8] = [0xFF, 0xD8, 0xFF]
    /// The fixed eight-byte PNG file signature.
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The format whose signature starts `bytes`, or nil when neither matches.
    init?(detectingIn bytes: UnsafeRawBufferPointer) {
        if bytes.starts(with: Self.jpegSignature) {
            self = .jpeg
        } else if bytes.starts(with: Self.pngSignature) {
            self = .png
        } else {
            return nil
        }
    }
}
