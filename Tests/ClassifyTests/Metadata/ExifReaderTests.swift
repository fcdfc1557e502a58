import Testing

@testable import Classify

/// The EXIF rules on hand-built blocks: which date wins, what is bogus, GPS signs and the
/// no-fix rule, camera names, and damaged structures.
@Suite("EXIF reader")
struct ExifReaderTests {
    static func metadata(_ block: ExifBlockBuilder) -> PhotoMetadata {
        PhotoMetadata(exif: block.bytes(), xmp: nil)
    }

    static func dated(_ exif: ExifBlockBuilder.Entries, ifd0: ExifBlockBuilder.Entries = []) -> DateTaken? {
        metadata(ExifBlockBuilder(ifd0: ifd0, exif: exif)).dateTaken
    }

    @Test(arguments: [false, true])
    func readsTheOriginalDateWithSubsecondsAndOffset(bigEndian: Bool) throws {
        let block = ExifBlockBuilder(
            bigEndian: bigEndian,
            exif: [
                (0x9003, .ascii("2023:06:01 14:30:05")), (0x9291, .ascii("120")), (0x9011, .ascii("+02:00")),
                (0x9004, .ascii("2023:06:01 14:30:09")),
            ])
        let taken = try #require(Self.metadata(block).dateTaken)
        #expect(taken.iso8601 == "2023-06-01T14:30:05.120+02:00")
        #expect(taken.source == .exifOriginal)
        #expect(taken.utcOffsetMinutes == 120)
        #expect(taken.nanosecond == 120_000_000)
        #expect(abs((taken.instant?.timeIntervalSince1970 ?? 0) - 1_685_622_605.12) < 1e-6)
    }

    @Test func withoutAnOffsetTheWallTimeHasNoInstant() throws {
        let taken = try #require(Self.dated([(0x9003, .ascii("2021:03:04 05:06:07")), (0x9011, .ascii("   :  "))]))
        #expect(taken.iso8601 == "2021-03-04T05:06:07")
        #expect(taken.utcOffsetMinutes == nil)
        #expect(taken.instant == nil)
    }

    @Test func fallsBackToTheDigitizedDateWithItsOwnSubsecondsAndOffset() throws {
        let taken = try #require(
            Self.dated([
                (0x9004, .ascii("2019:07:14 08:00:00")), (0x9292, .ascii("5")), (0x9012, .ascii("-07:00")),
                (0x9291, .ascii("999")), (0x9011, .ascii("+09:00")),  // the original's: not for this date
            ]))
        #expect(taken.iso8601 == "2019-07-14T08:00:00.5-07:00")
        #expect(taken.source == .exifDigitized)
    }

    @Test(arguments: [
        "0000:00:00 00:00:00", "2023:13:01 10:00:00", "2023:00:10 10:00:00", "2023:01:32 10:00:00",
        "2023:02:29 10:00:00", "2023:01:01 25:00:00", "2023:01:01 24:00:00", "2023:01:01 10:60:00",
        "1825:12:31 23:59:59", "    :  :     :  :  ", "2023:01:01", "2023/01/01 10:00:00", "garbage\u{1}\u{2}xyz0123456789",
        "２０２３:01:01 10:00:00", "2023:01:01 10:00:00 extra",
    ])
    func bogusOriginalDatesAreUnknownAndFallBack(text: String) throws {
        #expect(Self.dated([(0x9003, .ascii(text))]) == nil)
        let fallback = try #require(Self.dated([(0x9003, .ascii(text)), (0x9004, .ascii("2023:01:02 03:04:05"))]))
        #expect(fallback.source == .exifDigitized)
        #expect(fallback.iso8601 == "2023-01-02T03:04:05")
    }

    @Test func acceptsDashesAndTrailingBlanksAsPhonesWriteThem() {
        #expect(Self.dated([(0x9003, .ascii("2020-02-29 23:59:59"))])?.iso8601 == "2020-02-29T23:59:59")
        #expect(Self.dated([(0x9003, .ascii("2020:02:29 23:59:59  "))])?.iso8601 == "2020-02-29T23:59:59")
    }

    @Test func wrongTypesAndLyingCountsAreUnknown() {
        #expect(Self.dated([(0x9003, .short([2023, 6, 1]))]) == nil)
        #expect(Self.dated([(0x9003, .undefined(Array("2023:06:01 14:30:05".utf8)))]) == nil)
        // A count far beyond the block: the value would lie outside it.
        #expect(Self.dated([(0x9003, .raw(type: 2, count: 100_000, bytes: [0, 0, 0, 0]))]) == nil)
        #expect(Self.dated([(0x9003, .raw(type: 2, count: 0xFFFF_FFFF, bytes: [0, 0, 0, 0]))]) == nil)
        #expect(Self.dated([(0x9003, .raw(type: 99, count: 20, bytes: [0, 0, 0, 0]))]) == nil)
    }

    @Test(arguments: [
        ("+02:00", 120), ("-05:30", -330), ("+00:00", 0), ("+14:00", 840), ("+14:01", nil), ("+15:00", nil),
        ("02:00", nil), ("+2:00", nil), ("   :  ", nil), ("", nil), ("+02:60", nil),
    ] as [(String, Int?)])
    func offsets(text: String, minutes: Int?) {
        let taken = Self.dated([(0x9003, .ascii("2023:06:01 14:30:05")), (0x9011, .ascii(text))])
        #expect(taken?.utcOffsetMinutes == minutes)
        #expect(taken != nil)  // a bad offset drops only the offset
    }

    @Test func badSubsecondsDropOnlyTheSubseconds() {
        let taken = Self.dated([(0x9003, .ascii("2023:06:01 14:30:05")), (0x9291, .ascii("1x"))])
        #expect(taken?.iso8601 == "2023-06-01T14:30:05")
        let padded = Self.dated([(0x9003, .ascii("2023:06:01 14:30:05")), (0x9291, .ascii("07  "))])
        #expect(padded?.subsecondDigits == "07")
    }

    @Test func tiffEPFilesKeepTheOriginalDateInIFD0() {
        let taken = Self.metadata(ExifBlockBuilder(ifd0: [(0x9003, .ascii("2018:05:06 07:08:09"))])).dateTaken
        #expect(taken?.iso8601 == "2018-05-06T07:08:09")
        #expect(taken?.source == .exifOriginal)
    }

    // MARK: GPS

    static func located(_ gps: ExifBlockBuilder.Entries, bigEndian: Bool = false) -> GPSCoordinate? {
        metadata(ExifBlockBuilder(bigEndian: bigEndian, gps: gps)).location
    }

    static func position(
        _ latitude: Double, _ latitudeRef: String, _ longitude: Double, _ longitudeRef: String
    ) -> ExifBlockBuilder.Entries {
        [
            (1, .ascii(latitudeRef)), (2, ExifBlockBuilder.angle(latitude)), (3, .ascii(longitudeRef)),
            (4, ExifBlockBuilder.angle(longitude)),
        ]
    }

    @Test(arguments: [false, true])
    func readsPositionsInEveryHemisphere(bigEndian: Bool) throws {
        let paris = try #require(Self.located(Self.position(48.8584, "N", 2.2945, "E"), bigEndian: bigEndian))
        #expect(abs(paris.latitude - 48.8584) < 1e-6 && abs(paris.longitude - 2.2945) < 1e-6)
        #expect(paris.altitude == nil)
        let rio = try #require(Self.located(Self.position(22.9519, "S", 43.2105, "W"), bigEndian: bigEndian))
        #expect(abs(rio.latitude + 22.9519) < 1e-6 && abs(rio.longitude + 43.2105) < 1e-6)
    }

    @Test func altitudeAboveAndBelowSeaLevel() {
        let above = Self.located(Self.position(47.3769, "N", 8.5417, "E") + [(5, .byte([0])), (6, .rational([(4085, 10)]))])
        #expect(above?.altitude == 408.5)
        let below = Self.located(Self.position(31.5, "N", 35.5, "E") + [(5, .byte([1])), (6, .rational([(430, 1)]))])
        #expect(below?.altitude == -430)
        let unknown = Self.located(Self.position(31.5, "N", 35.5, "E") + [(6, .rational([(430, 0)]))])
        #expect(unknown != nil && unknown?.altitude == nil)
    }

    @Test func nullIslandWithoutAFixIsUnknownButBelievedWithOne() {
        let zero = Self.position(0, "N", 0, "E")
        #expect(Self.located(zero) == nil)
        #expect(Self.located(zero + [(7, .rational([(12, 1), (0, 1), (0, 1)]))]) == nil)  // a time stamp is no fix
        #expect(Self.located(zero + [(9, .ascii("A"))]) == GPSCoordinate(latitude: 0, longitude: 0))
        #expect(Self.located(zero + [(11, .rational([(15, 10)]))]) == GPSCoordinate(latitude: 0, longitude: 0))
    }

    @Test func voidMeasurementsAndMissingReferencesAreUnknown() {
        #expect(Self.located(Self.position(51.5, "N", 0.12, "W") + [(9, .ascii("V"))]) == nil)
        #expect(Self.located([(2, ExifBlockBuilder.angle(51.5)), (4, ExifBlockBuilder.angle(0.12))]) == nil)
        #expect(Self.located(Self.position(51.5, "X", 0.12, "W")) == nil)
        #expect(Self.located(Self.position(51.5, "E", 0.12, "N")) == nil)  // references swapped
    }

    @Test func outOfRangeAndDamagedAnglesAreUnknown() {
        #expect(Self.located(Self.position(91, "N", 2, "E")) == nil)
        #expect(Self.located(Self.position(45, "N", 181, "E")) == nil)
        let minutes60: ExifBlockBuilder.Value = .rational([(45, 1), (60, 1), (0, 1)])
        #expect(Self.located([(1, .ascii("N")), (2, minutes60), (3, .ascii("E")), (4, ExifBlockBuilder.angle(2))]) == nil)
        let zeroDenominator: ExifBlockBuilder.Value = .rational([(45, 0), (0, 1), (0, 1)])
        #expect(Self.located([(1, .ascii("N")), (2, zeroDenominator), (3, .ascii("E")), (4, ExifBlockBuilder.angle(2))]) == nil)
        let wrongType: ExifBlockBuilder.Value = .long([45, 0, 0])
        #expect(Self.located([(1, .ascii("N")), (2, wrongType), (3, .ascii("E")), (4, ExifBlockBuilder.angle(2))]) == nil)
        let decimalDegrees: ExifBlockBuilder.Value = .rational([(455, 10)])
        #expect(
            Self.located([(1, .ascii("N")), (2, decimalDegrees), (3, .ascii("E")), (4, ExifBlockBuilder.angle(2))])?
                .latitude == 45.5)
    }

    // MARK: Camera

    @Test func cameraNamesAreCleaned() throws {
        let block = ExifBlockBuilder(
            ifd0: [(0x010F, .ascii("Apple\u{0}\u{0}  ")), (0x0110, .ascii("  iPhone 13 "))],
            exif: [(0xA434, .ascii("iPhone 13 back dual wide camera 5.1mm f/1.6"))])
        let camera = try #require(Self.metadata(block).camera)
        #expect(camera.make == "Apple")
        #expect(camera.model == "iPhone 13")
        #expect(camera.lensModel == "iPhone 13 back dual wide camera 5.1mm f/1.6")
        #expect(Self.metadata(ExifBlockBuilder(ifd0: [(0x010F, .ascii("   ")), (0x0110, .ascii(""))])).camera == nil)
        #expect(Self.metadata(ExifBlockBuilder(ifd0: [(0x0110, .short([7]))])).camera == nil)
    }

    // MARK: Damaged structures

    @Test func directoryPointersThatLoopOrLeaveTheBlockAreIgnored() {
        let date: ExifBlockBuilder.Entries = [(0x9003, .ascii("2023:06:01 14:30:05"))]
        var block = ExifBlockBuilder(ifd0: [(0x010F, .ascii("Canon"))], exif: date).bytes()
        // IFD0 entry 0 is Make, entry 1 the ExifIFD pointer; point it back at IFD0 (offset 8).
        let pointerValue = 8 + 2 + 12 + 8
        block.replaceSubrange(pointerValue..<pointerValue + 4, with: [8, 0, 0, 0])
        var metadata = PhotoMetadata(exif: block, xmp: nil)
        #expect(metadata.dateTaken == nil)
        #expect(metadata.camera?.make == "Canon")
        block.replaceSubrange(pointerValue..<pointerValue + 4, with: [0xF0, 0xFF, 0xFF, 0x7F])
        metadata = PhotoMetadata(exif: block, xmp: nil)
        #expect(metadata.dateTaken == nil && metadata.camera?.make == "Canon")
    }

    @Test func theAPP1PrefixIsSkippedAndOtherBlocksGiveNothing() {
        let block = ExifBlockBuilder(exif: [(0x9003, .ascii("2023:06:01 14:30:05"))]).bytes()
        #expect(PhotoMetadata(exif: Array("Exif".utf8) + [0, 0] + block, xmp: nil).dateTaken?.year == 2023)
        #expect(PhotoMetadata(exif: [], xmp: nil).isEmpty)
        #expect(PhotoMetadata(exif: Array("II*\u{0}".utf8), xmp: nil).isEmpty)
        #expect(PhotoMetadata(exif: Array(block.prefix(30)), xmp: nil).dateTaken == nil)
    }
}
