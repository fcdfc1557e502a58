import Testing

@testable import Classify

@Suite("EXIF orientation reader")
struct ExifOrientationReaderTests {
    @Test(arguments: 1...8, [false, true])
    func readsEveryValueInBothByteOrders(value: Int, bigEndian: Bool) {
        let exif = TestPictures.exif(orientation: UInt16(value), bigEndian: bigEndian)
        #expect(ExifOrientationReader.orientation(in: exif).rawValue == value)
    }

    @Test func acceptsTheAPP1Prefix() {
        let exif = TestPictures.jpegAPP1(TestPictures.exif(orientation: 6, bigEndian: false))
        #expect(ExifOrientationReader.orientation(in: exif) == .rotate90Clockwise)
    }

    @Test func acceptsALongValue() {
        // Type 4 (LONG) instead of SHORT, as a few writers do.
        var exif = TestPictures.exif(orientation: 0, bigEndian: true)
        exif.replaceSubrange(12..<14, with: [0, 4])  // type field of the only entry
        exif.replaceSubrange(18..<22, with: [0, 0, 0, 8])
        #expect(ExifOrientationReader.orientation(in: exif) == .rotate90CounterClockwise)
    }

    @Test(arguments: [0, 9, 0xFFFF])
    func outOfRangeValuesMeanUpright(value: Int) {
        #expect(ExifOrientationReader.orientation(in: TestPictures.exif(orientation: UInt16(value), bigEndian: false)) == .identity)
    }

    @Test func ifdOffsetOutsideTheSegmentMeansUpright() {
        var exif = TestPictures.exif(orientation: 3, bigEndian: false)
        exif.replaceSubrange(4..<8, with: [0xF0, 0xFF, 0xFF, 0x7F])
        #expect(ExifOrientationReader.orientation(in: exif) == .identity)
        exif.replaceSubrange(4..<8, with: [UInt8(exif.count - 1), 0, 0, 0])  // count field cut off
        #expect(ExifOrientationReader.orientation(in: exif) == .identity)
    }

    @Test func entryCountLargerThanTheSegmentMeansUpright() {
        var exif = TestPictures.exif(orientation: 5, bigEndian: true)
        exif.replaceSubrange(8..<10, with: [0xFF, 0xFF])
        exif.replaceSubrange(10..<12, with: [0x01, 0x00])  // first entry is some other tag
        #expect(ExifOrientationReader.orientation(in: exif) == .identity)
    }

    @Test func ifdThatLinksToItselfIsHarmless() {
        // IFD0 without an orientation tag whose "next IFD" offset points back to IFD0.
        var exif = TestPictures.exif(orientation: 6, bigEndian: false)
        exif.replaceSubrange(10..<12, with: [0x0F, 0x01])  // tag 0x010F (Make) instead
        exif.replaceSubrange(22..<26, with: [8, 0, 0, 0])
        #expect(ExifOrientationReader.orientation(in: exif) == .identity)
    }

    @Test func valueFieldCutOffMeansUpright() {
        let exif = TestPictures.exif(orientation: 6, bigEndian: false)
        #expect(ExifOrientationReader.orientation(in: Array(exif[0..<19])) == .identity)
        #expect(ExifOrientationReader.orientation(in: Array(exif[0..<20])) == .rotate90Clockwise)
    }

    @Test func garbageMeansUpright() {
        #expect(ExifOrientationReader.orientation(in: []) == .identity)
        #expect(ExifOrientationReader.orientation(in: Array("MM".utf8)) == .identity)
        #expect(ExifOrientationReader.orientation(in: Array("XX\u{0}*\u{0}\u{0}\u{0}\u{8}".utf8)) == .identity)
        #expect(ExifOrientationReader.orientation(in: [0x4D, 0x4D, 0x00, 0x2B, 0, 0, 0, 8, 0, 0]) == .identity)  // magic 43
        for seed in 0..<200 {
            let noise = TestPictures.noise(count: Int(seed % 64), seed: UInt64(seed))
            _ = ExifOrientationReader.orientation(in: Array("II*\u{0}".utf8) + noise)  // must not trap
        }
    }
}
