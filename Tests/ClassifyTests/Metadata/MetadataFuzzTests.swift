import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify

/// Truncated and garbled EXIF blocks, XMP packets and whole files never trap, and whatever is
/// still read obeys the types' invariants.
@Suite("Metadata fuzz")
struct MetadataFuzzTests {
    static let richBlock: [UInt8] = ExifBlockBuilder(
        bigEndian: true,
        ifd0: [(0x010F, .ascii("Apple")), (0x0110, .ascii("iPhone 13")), (0x0112, .short([6]))],
        exif: [
            (0x9003, .ascii("2023:06:01 14:30:05")), (0x9291, .ascii("120")), (0x9011, .ascii("+02:00")),
            (0x9004, .ascii("2023:06:01 14:30:06")), (0xA434, .ascii("iPhone 13 back camera")),
        ],
        gps: ExifReaderTests.position(48.8584, "N", 2.2945, "E") + [(5, .byte([0])), (6, .rational([(35, 1)]))]
    ).bytes()

    static func checkInvariants(_ metadata: PhotoMetadata) {
        if let taken = metadata.dateTaken {
            #expect(taken.year >= 1826 && (1...12).contains(taken.month) && (0...23).contains(taken.hour))
        }
        if let location = metadata.location {
            #expect(abs(location.latitude) <= 90 && abs(location.longitude) <= 180)
            #expect(!(location.latitude == 0 && location.longitude == 0))
        }
    }

    @Test func theIntactBlockReadsFully() {
        let metadata = PhotoMetadata(exif: Self.richBlock, xmp: nil)
        #expect(metadata.dateTaken?.iso8601 == "2023-06-01T14:30:05.120+02:00")
        #expect(metadata.location?.altitude == 35)
        #expect(metadata.camera?.lensModel == "iPhone 13 back camera")
    }

    @Test func everyTruncationIsSafe() {
        var dated = 0
        for length in 0...Self.richBlock.count {
            let metadata = PhotoMetadata(exif: Array(Self.richBlock.prefix(length)), xmp: nil)
            Self.checkInvariants(metadata)
            if metadata.dateTaken != nil { dated += 1 }
        }
        // The date's text sits in the data area after the directories: only long prefixes keep it.
        #expect(dated > 0 && dated < Self.richBlock.count / 2)
    }

    @Test func seededMutationsAreSafe() {
        var random = SeededRandom(seed: 32)
        var changed = 0
        for _ in 0..<3000 {
            var block = Self.richBlock
            for _ in 0..<Int.random(in: 1...8, using: &random) {
                let index = Int.random(in: 0..<block.count, using: &random)
                block[index] = UInt8.random(in: 0...255, using: &random)
            }
            let metadata = PhotoMetadata(exif: block, xmp: nil)
            Self.checkInvariants(metadata)
            if metadata != PhotoMetadata(exif: Self.richBlock, xmp: nil) { changed += 1 }
            _ = ExifOrientationReader.orientation(in: block)
        }
        #expect(changed > 100)  // the mutations did reach the parser
    }

    @Test func garbledXMPIsSafe() {
        let packet = XMPReaderTests.packet(
            "<rdf:Description xmlns:exif='e' exif:DateTimeOriginal='2015-01-01T00:00:00' exif:GPSLatitude='48,51.5N' exif:GPSLongitude='2,17.67E'/>"
        )
        var random = SeededRandom(seed: 33)
        for _ in 0..<2000 {
            var garbled = packet
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                garbled[Int.random(in: 0..<garbled.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            Self.checkInvariants(XMPReader.metadata(inPacket: Array(garbled.prefix(Int.random(in: 0...garbled.count, using: &random)))))
        }
        #expect(XMPReader.metadata(inPacket: packet).location != nil)
    }

    @Test(arguments: ["jpeg-full.jpg", "png-exif.png", "webp-exif.webp", "tiff-digitized.tif"])
    func garbledFilesDecodeOrFailCleanly(file: String) throws {
        let original = try [UInt8](Data(contentsOf: MetadataFixtureTests.url(file)))
        var random = SeededRandom(seed: 34)
        for _ in 0..<150 {
            var bytes = original
            // Mutate the first 600 bytes, where the containers keep their metadata.
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                bytes[Int.random(in: 12..<min(600, bytes.count), using: &random)] = UInt8.random(in: 0...255, using: &random)
            }
            if let image = try? ImageDecoder().decode(bytes) { Self.checkInvariants(image.metadata) }
        }
    }
}
