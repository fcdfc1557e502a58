import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Foundation
import Testing

@testable import Classify

@Suite("Format detection")
struct FormatDetectionTests {
    let decoder = ImageDecoder()

    @Test func emptyDataIsNotAnImage() {
        #expect(decodingError { try decoder.decode(Data()) } == .unrecognizedFormat)
    }

    @Test func textIsNotAnImage() {
        let text = Data("This is a plain text file, not a picture.\n".utf8)
        #expect(decodingError { try decoder.decode(text) } == .unrecognizedFormat)
    }

    @Test func randomBytesAreNotAnImage() {
        let bytes = TestPictures.noise(count: 4096, seed: 7)
        #expect(decodingError { try decoder.decode(bytes) } == .unrecognizedFormat)
    }

    @Test func shortPrefixOfASignatureIsNotAnImage() {
        #expect(decodingError { try decoder.decode([0xFF, 0xD8] as [UInt8]) } == .unrecognizedFormat)
        #expect(decodingError { try decoder.decode([0x89, 0x50, 0x4E, 0x47] as [UInt8]) } == .unrecognizedFormat)
    }

    @Test func formatComesFromTheBytes() throws {
        let rgb = [UInt8](repeating: 200, count: 16 * 16 * 3)
        let jpeg = try TestJPEG.encode(rgb, width: 16, height: 16)
        let png = try TestPNG.encode(rgb.map(UInt16.init), width: 16, height: 16, color: CLS_TEST_PNG_RGB)
        #expect(try decoder.decode(jpeg).format == .jpeg)
        #expect(try decoder.decode(png).format == .png)
    }

    @Test func errorMessageNamesTheSupportedFormats() {
        #expect(ImageDecodingError.unrecognizedFormat.description.contains("(JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF, camera raw)"))
        #expect(ImageDecodingError.unrecognizedFormat.stage == "decode")
    }

    private static func bytes(_ parts: [Any]) -> [UInt8] {
        parts.flatMap { part -> [UInt8] in
            if let text = part as? String { return Array(text.utf8) }
            if let numbers = part as? [Int] { return numbers.map { UInt8($0) } }
            return part as! [UInt8]
        } + [UInt8](repeating: 0, count: 32)
    }

    @Test(arguments: [
        (bytes(["GIF89a"]), ImageSignature.format(.gif)),
        (bytes(["GIF87a"]), .format(.gif)),
        (bytes(["RIFF", [0x24, 0, 0, 0], "WEBPVP8 "]), .format(.webp)),
        (bytes(["II", [0x2A, 0], [8, 0, 0, 0]]), .format(.tiff)),
        (bytes(["MM", [0, 0x2A], [0, 0, 0, 8]]), .format(.tiff)),
        (bytes(["II", [0x2B, 0], [8, 0, 0, 0]]), .format(.tiff)),  // BigTIFF
        (bytes(["II", [0x2A, 0], [16, 0, 0, 0], "CR", [2, 0]]), .format(.raw)),  // Canon CR2
        (bytes(["IIRO"]), .format(.raw)),  // Olympus ORF
        (bytes(["II", [0x55, 0]]), .format(.raw)),  // Panasonic RW2
        (bytes(["FUJIFILMCCD-RAW 0201"]), .format(.raw)),
        (bytes([[0, 0, 0, 0x18], "ftypheic", [0, 0, 0, 0], "mif1heic"]), .format(.heif)),
        (bytes([[0, 0, 0, 0x18], "ftypmif1", [0, 0, 0, 0], "mif1heic"]), .format(.heif)),
        (bytes([[0, 0, 0, 0x1C], "ftypavif", [0, 0, 0, 0], "avifmif1miaf"]), .format(.avif)),
        (bytes([[0, 0, 0, 0x18], "ftypmif1", [0, 0, 0, 0], "mif1avif"]), .format(.avif)),
        (bytes([[0, 0, 0, 0x18], "ftypcrx ", [0, 0, 0, 1], "crx isom"]), .format(.raw)),  // Canon CR3
        (bytes([[0, 0, 0, 0x0C], "jP  ", [0x0D, 0x0A, 0x87, 0x0A]]), .unsupported("JPEG 2000")),
        (bytes([[0xFF, 0x4F, 0xFF, 0x51]]), .unsupported("JPEG 2000")),
        (bytes([[0, 0, 0, 0x0C], "JXL ", [0x0D, 0x0A, 0x87, 0x0A]]), .unsupported("JPEG XL")),
        (bytes(["8BPS"]), .unsupported("Photoshop (PSD)")),
        (bytes(["BM", [0x36, 0x10, 0, 0], [0, 0, 0, 0], [0x36, 0, 0, 0], [40, 0, 0, 0]]), .unsupported("BMP")),
    ])
    func signaturesAreRecognised(bytes: [UInt8], expected: ImageSignature) {
        #expect(ImageSignature(leadingBytes: bytes) == expected)
    }

    @Test func videosAndLookalikesAreNotImages() {
        #expect(ImageSignature(leadingBytes: Self.bytes([[0, 0, 0, 0x18], "ftypisom", [0, 0, 2, 0], "isomiso2"])) == nil)
        #expect(ImageSignature(leadingBytes: Self.bytes([[0, 0, 0, 0x14], "ftypqt  ", [0, 0, 2, 0], "qt  "])) == nil)
        #expect(ImageSignature(leadingBytes: Self.bytes(["RIFF", [0x24, 0, 0, 0], "WAVEfmt "])) == nil)
        #expect(ImageSignature(leadingBytes: Self.bytes(["BM is the start of this text file"])) == nil)
        #expect(ImageSignature(leadingBytes: Self.bytes(["GIF8"])) == nil)
    }

    @Test func recognisedButUnsupportedFormatsSaySo() {
        let jpeg2000 = Self.bytes([[0, 0, 0, 0x0C], "jP  ", [0x0D, 0x0A, 0x87, 0x0A]])
        let error = decodingError { try decoder.decode(jpeg2000) }
        #expect(error == .unsupportedFormat("JPEG 2000"))
        #expect(error?.description.hasPrefix("Unsupported format: JPEG 2000;") == true)
        #expect(error?.stage == "decode")
    }
}
