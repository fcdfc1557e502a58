import ClassifySupport
import Foundation
import Testing

@testable import Classify

@Suite("Date taken")
struct DateTakenTests {
    @Test func instantNeedsTheOffsetAndAgreesWithFoundation() throws {
        let taken = try #require(
            DateTaken(year: 2020, month: 2, day: 29, hour: 23, minute: 59, second: 59, utcOffsetMinutes: 330, source: .exifOriginal))
        let parsed = try #require(ISO8601DateFormatter().date(from: "2020-02-29T23:59:59+05:30"))
        #expect(taken.instant == parsed)
        #expect(taken.iso8601 == "2020-02-29T23:59:59+05:30")
        #expect(taken.withUTCOffset(minutes: nil)?.instant == nil)
        #expect(taken.withUTCOffset(minutes: 0)?.iso8601 == "2020-02-29T23:59:59Z")
        #expect(taken.withUTCOffset(minutes: -210)?.iso8601 == "2020-02-29T23:59:59-03:30")
    }

    @Test func calendarArithmeticRoundTripsOverTwoCenturies() {
        // 1900 (not leap), 2000 (leap), 2100 (not leap) and every day between.
        let first = CivilCalendar.daysSince1970(year: 1899, month: 12, day: 31)
        let last = CivilCalendar.daysSince1970(year: 2101, month: 3, day: 1)
        var expected = (year: 1899, month: 12, day: 31)
        for day in first...last {
            let date = CivilCalendar.civilDate(fromDaysSince1970: day)
            #expect(date.year == expected.year && date.month == expected.month && date.day == expected.day, "day \(day)")
            expected.day += 1
            if expected.day > CivilCalendar.daysIn(month: expected.month, year: expected.year) {
                expected.day = 1
                expected.month += 1
                if expected.month > 12 { (expected.month, expected.year) = (1, expected.year + 1) }
            }
        }
        #expect(CivilCalendar.daysSince1970(year: 1970, month: 1, day: 1) == 0)
        #expect(CivilCalendar.daysSince1970(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func invalidPartsAreRefused() {
        #expect(DateTaken(year: 2021, month: 2, day: 29, hour: 0, minute: 0, second: 0, source: .xmp) == nil)
        #expect(DateTaken(year: 2024, month: 2, day: 29, hour: 0, minute: 0, second: 0, source: .xmp) != nil)
        #expect(DateTaken(year: 1825, month: 1, day: 1, hour: 0, minute: 0, second: 0, source: .xmp) == nil)
        #expect(DateTaken(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecondDigits: "", source: .xmp) == nil)
        #expect(DateTaken(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, subsecondDigits: "1234567890", source: .xmp) == nil)
        #expect(DateTaken(year: 2024, month: 1, day: 1, hour: 0, minute: 0, second: 0, utcOffsetMinutes: 15 * 60, source: .xmp) == nil)
    }

    @Test func fileModificationTimeIsAnExactInstantInUTC() throws {
        let date = Date(timeIntervalSince1970: 1_700_000_000.25)
        let taken = try #require(DateTaken(fileModificationTime: date))
        #expect(taken.iso8601 == "2023-11-14T22:13:20.250Z")
        #expect(taken.source == .fileModificationTime)
        #expect(taken.instant == date)
        #expect(DateTaken(fileModificationTime: Date(timeIntervalSince1970: -5_000_000_000)) == nil)  // 1811
    }

    @Test(arguments: [
        ("2017-08-21T10:20:30.5-05:00", "2017-08-21T10:20:30.5-05:00"),
        ("2017-08-21T10:20:30Z", "2017-08-21T10:20:30Z"),
        ("2017-08-21T10:20", "2017-08-21T10:20:00"),
        (" 2017-08-21T10:20:30 ", "2017-08-21T10:20:30"),
        ("2017-08-21", nil), ("2017-13-21T10:20:30", nil), ("2017-08-21T10:20:30+5", nil), ("2017-08-21T10:20:30.Z", nil),
        ("", nil), ("yesterday", nil),
    ] as [(String, String?)])
    func xmpDates(text: String, iso: String?) {
        #expect(DateTaken.xmp(text)?.iso8601 == iso)
    }
}
