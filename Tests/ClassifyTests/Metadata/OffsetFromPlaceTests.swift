import Foundation
import Testing

@testable import Classify

@Suite("Offsets from places")
struct OffsetFromPlaceTests {
    static func wallTime(_ year: Int, _ month: Int, _ day: Int, _ hour: Int, _ minute: Int = 0) -> DateTaken {
        DateTaken(year: year, month: month, day: day, hour: hour, minute: minute, second: 0, source: .exifOriginal)!
    }

    @Test func summerAndWinterInParis() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let summer = Self.wallTime(2023, 7, 14, 12).resolvingUTCOffset(in: paris)
        #expect(summer.utcOffsetMinutes == 120 && summer.utcOffsetIsInferred)
        #expect(Self.wallTime(2023, 1, 14, 12).resolvingUTCOffset(in: paris).utcOffsetMinutes == 60)
        // 2023-03-26 02:30 does not exist in Paris (clocks went 02:00 -> 03:00): the offset before.
        #expect(Self.wallTime(2023, 3, 26, 2, 30).resolvingUTCOffset(in: paris).utcOffsetMinutes == 60)
        // 2023-10-29 02:30 happened twice: the first (summer time) is used.
        #expect(Self.wallTime(2023, 10, 29, 2, 30).resolvingUTCOffset(in: paris).utcOffsetMinutes == 120)
        // A recorded offset is never replaced.
        let recorded = try #require(Self.wallTime(2023, 7, 14, 12).withUTCOffset(minutes: 0))
        #expect(recorded.resolvingUTCOffset(in: paris) == recorded)
    }

    @Test func aPhotoWithGPSButNoOffsetGetsThePlacesZone() throws {
        let metadata = PhotoMetadata(
            dateTaken: Self.wallTime(2022, 12, 24, 20, 15), location: GPSCoordinate(latitude: -22.9519, longitude: -43.2105))
        let resolved = metadata.resolvingUTCOffset(using: try PlaceDirectory.shared())
        #expect(resolved.dateTaken?.iso8601 == "2022-12-24T20:15:00-03:00")
        #expect(resolved.dateTaken?.utcOffsetIsInferred == true)
        let atSea = PhotoMetadata(dateTaken: Self.wallTime(2022, 12, 24, 20), location: GPSCoordinate(latitude: 45, longitude: -30))
        #expect(atSea.resolvingUTCOffset(using: try PlaceDirectory.shared()) == atSea)
    }
}
