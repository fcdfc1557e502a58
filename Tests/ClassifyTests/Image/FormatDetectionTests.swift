import ClassifyTestSupport
import CClassifyCodecs
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
        #expect(ImageDecodingError.unrecognizedFormat.description.contains("not a JPEG or PNG image"))
        #expect(ImageDecodingError.unrecognizedFormat.stage == "decode")
    }
}
