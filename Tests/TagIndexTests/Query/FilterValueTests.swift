import Foundation
import TagIndex
import Testing

/// One reading of dates and sizes for the query language and the command line's options.
struct FilterValueTests {
    @Test func aBareDateIsMidnightInTheGivenTimeZone() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let date = try #require(FilterValue.date("2024-07-01", timeZone: paris))
        #expect(date == Date(timeIntervalSince1970: 1_719_784_800))  // 2024-06-30T22:00:00Z
        let utc = try #require(FilterValue.date("2024-07-01", timeZone: .gmt))
        #expect(utc.timeIntervalSince(date) == 7200)
    }

    @Test func aTimestampWithAnOffsetIsThatInstantWhateverTheZone() throws {
        let tokyo = try #require(TimeZone(identifier: "Asia/Tokyo"))
        #expect(FilterValue.date("2024-07-01T12:00:00Z", timeZone: tokyo) == Date(timeIntervalSince1970: 1_719_835_200))
        #expect(FilterValue.date("2024-07-01T14:00:00+02:00", timeZone: .gmt) == Date(timeIntervalSince1970: 1_719_835_200))
    }

    @Test func notDatesAreRefused() {
        for text in ["2024-13-45", "yesterday", "2e23-01-02", "", "2024-01"] {
            #expect(FilterValue.date(text) == nil, "\(text)")
        }
    }

    @Test func sizesReadTheSameWithOrWithoutTheB() {
        #expect(FilterValue.bytes("500KB") == 512_000)
        #expect(FilterValue.bytes("2M") == 2 << 20)
        #expect(FilterValue.bytes("2 mb") == 2 << 20)
        #expect(FilterValue.bytes("1.5G") == 3 << 29)
        #expect(FilterValue.bytes("1234") == 1234)
        #expect(FilterValue.bytes("0") == 0)
        for text in ["big", "-1KB", "1e30GB", "MB", ""] {
            #expect(FilterValue.bytes(text) == nil, "\(text)")
        }
    }

    @Test func theQueryLanguageAndTheOptionsAgree() throws {
        let query = try Query(parsing: "after:2024-07-01 minsize:2M")
        #expect(query.filters.taken == LocalTimeRange(lower: "2024-07-01", upper: nil))
        #expect(query.filters.minimumBytes == FilterValue.bytes("2MB"))
    }
}
