import Classify
import Foundation
import Testing

@testable import Classify

/// Reverse geocoding and name lookup on the committed places file (Models/places/places.bin).
@Suite("Places")
struct PlaceDirectoryTests {
    static func places() throws -> PlaceDirectory { try PlaceDirectory.shared() }

    @Test func theFileLoadsWithEveryPlace() throws {
        #expect(try Self.places().count == 234_908)
    }

    @Test func theMostPopulousPlacesFindThemselves() throws {
        let places = try Self.places()
        let rows = (0..<places.count).map { ($0, places.population(at: $0)) }.sorted { $0.1 > $1.1 }.prefix(300)
        var lost: [String] = []
        for (row, _) in rows {
            let place = places.place(at: row)
            let found = places.nearestPlace(latitude: place.latitude, longitude: place.longitude)
            if found?.id != place.id { lost.append("\(place.name) -> \(found?.name ?? "nothing")") }
        }
        #expect(lost.isEmpty, "\(lost)")
    }

    struct Spot: CustomTestStringConvertible, Sendable {
        var latitude: Double
        var longitude: Double
        var name: String
        var countryCode: String
        var testDescription: String { "\(name) at \(latitude), \(longitude)" }
    }

    // Points checked against a map: each lies in the named town, on its side of the border.
    static let borderSpots: [Spot] = [
        Spot(latitude: 48.5722, longitude: 7.8156, name: "Kehl", countryCode: "DE"),  // Kehl town hall
        Spot(latitude: 48.5818, longitude: 7.7509, name: "Strasbourg", countryCode: "FR"),  // the cathedral
        Spot(latitude: 46.2044, longitude: 6.1432, name: "Geneva", countryCode: "CH"),  // the old town
        Spot(latitude: 46.1934, longitude: 6.2342, name: "Annemasse", countryCode: "FR"),  // Annemasse station
        Spot(latitude: 42.3314, longitude: -83.0458, name: "Detroit", countryCode: "US"),  // downtown Detroit
        Spot(latitude: 42.3000, longitude: -83.0165, name: "Windsor", countryCode: "CA"),  // central Windsor
        Spot(latitude: 31.7587, longitude: -106.4869, name: "El Paso", countryCode: "US"),  // downtown El Paso
        Spot(latitude: 31.7202, longitude: -106.4608, name: "Ciudad Juárez", countryCode: "MX"),  // central Juárez
    ]

    @Test(arguments: borderSpots)
    func bordersFallOnTheRightSide(_ spot: Spot) throws {
        let place = try #require(try Self.places().nearestPlace(latitude: spot.latitude, longitude: spot.longitude))
        #expect(place.name == spot.name)
        #expect(place.countryCode == spot.countryCode)
    }

    @Test func aPlaceCarriesItsCountryStateAndZone() throws {
        let detroit = try #require(try Self.places().nearestPlace(latitude: 42.3314, longitude: -83.0458))
        #expect(detroit.id == 4_990_729)
        #expect(detroit.countryName == "United States")
        #expect(detroit.admin1Code == "MI")
        #expect(detroit.admin1Name == "Michigan")
        #expect(detroit.timeZoneIdentifier == "America/Detroit")
        let kehl = try #require(try Self.places().nearestPlace(latitude: 48.5722, longitude: 7.8156))
        #expect(kehl.countryName == "Germany" && kehl.admin1Name == nil && kehl.timeZoneIdentifier == "Europe/Berlin")
    }

    @Test(arguments: [(45.0, -30.0), (36.0, -123.0), (0.0, 0.0), (-60.0, 100.0), (89.9, 0.0), (-89.9, 179.9)])
    func atSeaThereIsNoPlace(latitude: Double, longitude: Double) throws {
        #expect(try Self.places().nearestPlace(latitude: latitude, longitude: longitude) == nil)
    }

    @Test func nearTheAntimeridian() throws {
        // No place of the file lies within 0.4 degrees of 180; the search wraps around it
        // without finding one, and Suva (178.44 E) is still found.
        let places = try Self.places()
        #expect(places.nearestPlace(latitude: -18.1416, longitude: 178.4419)?.name == "Suva")
        #expect(places.nearestPlace(latitude: -16.8, longitude: 180) == nil)
        #expect(places.nearestPlace(latitude: -16.8, longitude: -180) == nil)
    }

    @Test func badCoordinatesFindNothing() throws {
        let places = try Self.places()
        #expect(places.nearestPlace(latitude: .nan, longitude: 0) == nil)
        #expect(places.nearestPlace(latitude: 91, longitude: 0) == nil)
        #expect(places.nearestPlace(latitude: 0, longitude: -181) == nil)
    }

    // MARK: Names

    @Test func namesIgnoreCaseAndAccentsAndKnowAlternates() throws {
        let places = try Self.places()
        #expect(places.places(named: "ZÜRICH").first?.name == "Zürich")
        #expect(places.places(named: "zurich").first?.name == "Zürich")
        #expect(places.places(named: "Ciudad  Juarez").first?.id == 4_013_708)
        #expect(places.places(named: "München").first?.name == "Munich")  // an alternate name
        #expect(places.places(named: "Köln").first?.countryCode == "DE")
        // ASCII names are their own keys, lowercased as they are compared (FORMAT.md, nameKeys).
        #expect(places.places(named: "DETROIT").first?.id == 4_990_729)
        #expect(places.places(named: "detroi").isEmpty && places.places(named: "detroits").isEmpty)
        let springfields = places.places(named: "springfield")
        #expect(springfields.count > 10)
        #expect(zip(springfields, springfields.dropFirst()).allSatisfy { $0.population >= $1.population })
        #expect(places.places(named: "no such place anywhere").isEmpty)
        #expect(places.places(named: "  ").isEmpty)
    }

    @Test func countriesByNameAndCode() throws {
        let places = try Self.places()
        #expect(places.country(named: "de") == Country(code: "DE", name: "Germany"))
        #expect(places.country(named: "GERMANY")?.code == "DE")
        #expect(places.country(named: "ivory  COAST")?.code == "CI")
        #expect(places.country(named: "ÅLAND ISLANDS")?.code == "AX")  // stored as "Aland Islands"
        #expect(places.country(named: "Atlantis") == nil)
    }

    // MARK: The rule

    @Test func theTownYouWereInBeatsTheNearerHamlet() {
        let hamlet = PlaceRanking.pull(population: 500, distanceKilometres: 0.3)
        #expect(PlaceRanking.pull(population: 20_000, distanceKilometres: 2) > hamlet)
        #expect(PlaceRanking.pull(population: 20_000, distanceKilometres: 4) < hamlet)
        // Within the 1 km floor, population alone decides.
        #expect(PlaceRanking.pull(population: 600, distanceKilometres: 0.9) > PlaceRanking.pull(population: 500, distanceKilometres: 0.01))
        #expect(PlaceRanking.pull(population: 0, distanceKilometres: 1) == 1)
    }

    @Test func onRealDataTheTownBeatsTheNearerVillage() throws {
        // At the centre of Saint-Georges-Montcocq (931 people), 1.3 km from the centre of
        // Saint-Lô (21 700): the village is the nearest point, the town is the answer. The same
        // for Fenne (825) at the edge of Völklingen (41 000), 2 km away.
        let places = try Self.places()
        #expect(places.nearestPlace(latitude: 49.12807, longitude: -1.09357)?.name == "Saint-Lô")
        #expect(places.nearestPlace(latitude: 49.24702, longitude: 6.88499)?.name == "Völklingen")
        // The village is in the file (so it lost on the rule, not for being missing).
        let village = try #require(places.places(named: "Saint-Georges-Montcocq").first)
        #expect(village.population == 931)
        #expect(PlaceRanking.distanceKilometres(latitude: 49.12807, longitude: -1.09357, toLatitude: village.latitude, longitude: village.longitude) < 0.01)
    }

    // MARK: The file

    @Test func everyPlaceLiesInItsOwnGridCellAndFindsItsNameRow() throws {
        // Coordinates are stored relative to their cell's corner: decoding with the wrong cell
        // would move a place by half a degree or more. Every 37th place, all over the grid.
        let places = try Self.places()
        var wrong: [String] = []
        for index in stride(from: 0, to: places.count, by: 37) {
            let place = places.place(at: index)
            let cellRow = Int(((place.latitude + 90) * 2).rounded(.down)), cellColumn = Int(((place.longitude + 180) * 2).rounded(.down))
            let expected = places.file.data.withUnsafeBytes { places.file.gridPosition(ofPlace: index, in: $0) }
            if (min(cellRow, 359), min(cellColumn, 719)) != (expected.row, expected.column) { wrong.append("\(place.name) (\(index))") }
            if !places.places(named: place.name).contains(where: { $0.id == place.id }) { wrong.append("\(place.name) by name") }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(20))")
    }

    @Test func populationsAreExactBelow4096AndCloseAbove() {
        for population in [0, 1, 931, 4_095, 4_096, 99_999, 100_000, 100_001, 2_165_423, 24_874_500] {
            var exponent = 0
            while population >> exponent >= 1 << 12 { exponent += 1 }
            let decoded = PlacesFile.population(UInt16(exponent << 12 | population >> exponent))
            if population < 4_096 || population == 100_000 { #expect(decoded == population) }
            #expect(decoded == population || (decoded < population && Double(population - decoded) < Double(population) / 2_048))
        }
    }

    @Test func aDamagedFileIsAClearErrorNamingWhatIsWrong() throws {
        let original = try Data(contentsOf: try #require(PlaceDirectory.candidateFiles().first { FileManager.default.isReadableFile(atPath: $0.path) }))
        let folder = FileManager.default.temporaryDirectory.appending(path: "places-damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func reason(_ change: (inout Data) -> Void) -> String {
            var data = original
            change(&data)
            let url = folder.appending(path: "places.bin")
            try? data.write(to: url)
            do {
                _ = try PlaceDirectory(contentsOf: url)
                return "loaded"
            } catch {
                return error.description
            }
        }
        func word(_ offset: Int, _ data: Data) -> Int { Int(PlacesFile.uint32(data, at: offset)) }
        let table = PlacesFile.headerSize - PlacesFile.Section.allCases.count * 8
        let cells = word(table + PlacesFile.Section.cells.rawValue * 8, original)
        #expect(reason { $0[8] = 1 }.contains("format version 1, this build reads 2"))
        #expect(reason { $0 = $0.prefix(1_000_000) }.contains("lies outside the file"))
        #expect(reason { $0 = Data("not a places file".utf8) }.contains("does not start with the places magic"))
        // The fifth occupied cell starts at place 0: the cells are no longer ascending.
        #expect(reason { data in for byte in 0..<4 { data[cells + 4 * 8 + 4 + byte] = 0 } }.contains("the grid cells are not ascending"))
        // A column past the grid's width.
        #expect(reason { data in data[cells] = 0xFF; data[cells + 1] = 0xFF }.contains("the grid cells are not ascending"))
    }

    @Test func haversineDistances() {
        // One degree of latitude is 111.2 km; Paris to London is 344 km.
        #expect(abs(PlaceRanking.distanceKilometres(latitude: 0, longitude: 0, toLatitude: 1, longitude: 0) - 111.195) < 0.01)
        let parisLondon = PlaceRanking.distanceKilometres(latitude: 48.8566, longitude: 2.3522, toLatitude: 51.5072, longitude: -0.1276)
        #expect(abs(parisLondon - 343.9) < 1)
    }
}
