import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Foundation
import Testing

@testable import Classify

/// Damaged Huffman data anywhere in a real photo is an error, not a wrong picture. libjpeg-turbo's
/// fast Huffman path used to turn invalid codes into zeros silently whenever 512 bytes per block
/// were buffered, i.e. everywhere but near the end of a file.
@Suite struct CorruptEntropyDataTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/photos")

    static func photo(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: photos.appending(path: name)))
    }

    /// Overwrites `length` bytes at `fraction` of the entropy-coded data with stuffed 0xFF bytes
    /// (0xFF 0x00): all-ones bits, which no Huffman table may hold as a code.
    static func damaged(_ jpeg: [UInt8], at fraction: Double, length: Int) throws -> [UInt8] {
        let sos = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
        let start = sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
        var bytes = jpeg
        let offset = (start + Int(Double(jpeg.count - 2 - start) * fraction)) & ~1
        for position in stride(from: offset, to: min(offset + length, jpeg.count - 2), by: 2) {
            bytes[position] = 0xFF
            bytes[position + 1] = 0x00
        }
        return bytes
    }

    @Test(arguments: ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"])
    func damageEarlyMiddleOrLateInAPhotoIsCorrupt(name: String) throws {
        let jpeg = try Self.photo(name)
        for fraction in [0.1, 0.5, 0.8] {
            for length in [16, 64, 400] {
                let bytes = try Self.damaged(jpeg, at: fraction, length: length)
                for scale in [nil, 8] as [Int?] {
                    let error = decodingError { try ImageDecoder().decode(bytes, minimumShortSide: scale) }
                    #expect(error == .corrupt("Corrupt JPEG data: bad Huffman code"), "\(name) at \(fraction), \(length) bytes, scale \(String(describing: scale))")
                }
            }
        }
        // The intact photo still decodes.
        #expect(try ImageDecoder().decode(jpeg).width >= 384)
    }

    @Test func damageInAProgressiveScanIsCorrupt() throws {
        let cat = try ImageDecoder().decode(Self.photo("cat-chelsea.jpg"))
        let progressive = try TestJPEG.encode(cat.pixels, width: cat.width, height: cat.height, scans: CLS_TEST_JPEG_PROGRESSIVE)
        let bytes = try Self.damaged(progressive, at: 0.3, length: 64)
        #expect(decodingError { try ImageDecoder().decode(bytes) } == .corrupt("Corrupt JPEG data: bad Huffman code"))
    }
}
