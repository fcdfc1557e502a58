import Foundation

/// What the first bytes of a file say it is: a format this library reads, another image format
/// it recognises but cannot read (JPEG 2000, JPEG XL, BMP, Photoshop), or nothing (nil).
/// File name extensions play no part.
///
/// Usage:
/// ```swift
/// switch ImageSignature(leadingBytes: Array(data.prefix(64))) {
/// case .format(let format)?: print("reads \(format)")
/// case .unsupported(let name)?: print("an image, but \(name) is not supported")
/// case nil: print("not an image")
/// }
/// ```
public enum ImageSignature: Sendable, Hashable {
    /// A format ``ImageDecoder`` decodes.
    case format(ImageFormat)
    /// An image format recognised but not decoded; the payload is its name ("JPEG 2000").
    case unsupported(String)

    /// How many leading bytes are enough to recognise every signature (the ISO-BMFF `ftyp`
    /// box's brands included). Usage: `let head = try handle.read(upToCount: ImageSignature.sniffLength)`
    public static let sniffLength = 64

    /// Recognises the leading bytes of a file (at least ``sniffLength`` when the file has them).
    /// Usage: `let isImage = ImageSignature(leadingBytes: head) != nil`
    public init?(leadingBytes: some ContiguousBytes) {
        guard let signature = leadingBytes.withUnsafeBytes({ ImageSignature(bytes: $0) }) else { return nil }
        self = signature
    }

    init?(bytes: UnsafeRawBufferPointer) {
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && bytes[offset..<offset + prefix.count].elementsEqual(prefix)
        }
        func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .format(.jpeg)
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .format(.png)
        } else if starts(ascii("GIF87a")) || starts(ascii("GIF89a")) {
            self = .format(.gif)
        } else if starts(ascii("RIFF")) && starts(ascii("WEBP"), at: 8) {
            self = .format(.webp)
        } else if starts(ascii("II*\0")) && starts(ascii("CR\u{2}"), at: 8) {
            self = .format(.raw)  // Canon CR2: a TIFF with "CR" and version 2 after the header
        } else if Self.isTIFF(bytes) {
            self = .format(.tiff)  // or a TIFF-based raw file; CameraRawDecoding tells them apart
        } else if Self.rawSignatures.contains(where: { starts($0) }) {
            self = .format(.raw)
        } else if starts(ascii("ftyp"), at: 4), let signature = Self.isoMediaSignature(bytes) {
            self = signature
        } else if starts([0, 0, 0, 0x0C] + ascii("jP  ") + [0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x4F, 0xFF, 0x51]) {
            self = .unsupported("JPEG 2000")
        } else if starts([0, 0, 0, 0x0C] + ascii("JXL ") + [0x0D, 0x0A, 0x87, 0x0A]) || starts([0xFF, 0x0A]) {
            self = .unsupported("JPEG XL")
        } else if starts(ascii("8BPS")) {
            self = .unsupported("Photoshop (PSD)")
        } else if starts(ascii("BM")) && bytes.count >= 18 && bytes[6..<10].allSatisfy({ $0 == 0 })
            && [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]) | Int(bytes[15]) << 8)
        {
            self = .unsupported("BMP")  // "BM", reserved zeros, and a known DIB header size
        } else {
            return nil
        }
    }

    /// Classic and BigTIFF headers in either byte order.
    static func isTIFF(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard bytes.count >= 4 else { return false }
        let head = Array(bytes[0..<4])
        return head == [0x49, 0x49, 0x2A, 0] || head == [0x4D, 0x4D, 0, 0x2A] || head == [0x49, 0x49, 0x2B, 0]
            || head == [0x4D, 0x4D, 0, 0x2B]
    }

    /// Raw formats with signatures of their own (the TIFF-based ones are found by LibRaw).
    private static let rawSignatures: [[UInt8]] = [
        Array("IIRO".utf8), Array("IIRS".utf8), Array("MMOR".utf8),  // Olympus ORF
        [0x49, 0x49, 0x55, 0],  // Panasonic RW2
        Array("FUJIFILMCCD-RAW".utf8),  // Fujifilm RAF
        Array("FOVb".utf8),  // Sigma X3F
        [0x49, 0x49, 0x1A, 0, 0, 0] + Array("HEAPCCDR".utf8),  // Canon CRW
        [0] + Array("MRM".utf8),  // Minolta MRW
    ]

    /// The brands of an ISO base media file (HEIF, AVIF, Canon CR3; MP4 and QuickTime are
    /// not images): the major brand decides, then the compatible brands.
    private static func isoMediaSignature(_ bytes: UnsafeRawBufferPointer) -> ImageSignature? {
        guard bytes.count >= 12 else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= min(boxSize, bytes.count) {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        let heic: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs"]
        let avif: Set = ["avif", "avis"]
        for brand in brands {
            if heic.contains(brand) { return .format(.heif) }
            if avif.contains(brand) { return .format(.avif) }
            if brand == "crx " { return .format(.raw) }
        }
        if brands.contains("mif1") || brands.contains("msf1") { return .format(.heif) }
        if brands.contains("jpx ") || brands.contains("jp2 ") { return .unsupported("JPEG 2000") }
        return nil
    }
}
