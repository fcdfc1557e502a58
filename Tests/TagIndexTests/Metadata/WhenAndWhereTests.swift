import Foundation
import Testing
@testable import TagIndex

/// The months, countries and towns of a search's photos (the gallery's timeline and facets), the
/// same on both backends; a photo that states no date counts in its file time's month.
@Suite struct WhenAndWhereTests {
    @Test(arguments: Backend.allCases) func monthsCountriesAndTownsOfTheResultSet(backend: Backend) async throws {
        let index = try await PlainWordTests.make(backend)
        let all = try await index.reader.whenAndWhere(Query(), places: 10)
        #expect(all.months.map { "\($0.year)-\($0.month):\($0.count)" } == ["2022-5:1", "2021-3:1", "2020-7:1", "2019-12:1", "2019-6:1"])
        #expect(all.countries.map(\.countryCode) == ["FR", "IT", "US"])
        #expect(all.places.map(\.placeID) == [2_988_507, 3_169_070, 5_128_581])

        let dogs = try await index.reader.whenAndWhere(try PlainWordTests.query("dog"), places: 1)
        #expect(dogs.months.map { "\($0.year)-\($0.month)" } == ["2020-7", "2019-6"])
        #expect(dogs.countries == [WhenAndWhere.PlaceCount(placeID: nil, countryCode: "FR", count: 1)])
        #expect(dogs.places.count == 1)

        // Plain words are read as in a search; a search that finds nothing has no months.
        let italy = try await index.reader.whenAndWhere(try PlainWordTests.query("italy"), places: 10)
        #expect(italy.months.map(\.month) == [7] && italy.countries.map(\.countryCode) == ["IT"])
        #expect(try await index.reader.whenAndWhere(try PlainWordTests.query("dog 2021"), places: 10) == WhenAndWhere(months: [], countries: [], places: []))
    }
}
