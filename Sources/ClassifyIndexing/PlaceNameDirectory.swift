import Classify
import Foundation
import TagIndex

/// The search language's place names (`place:`, `country:`) from the places file: towns by name
/// and alternate name (every town of that name, with the area around it: a photo taken in a
/// district of Paris has the district as its nearest place), US states and countries. The file
/// loads on the first place name a search uses; `-` and `_` may stand for spaces (`new-york`).
///
/// Usage: `PlaceNames.install(PlaceNameDirectory())` at the start of a program.
public struct PlaceNameDirectory: PlaceNameResolver {
    /// The most towns one name stands for (the most populous kept): "San José" names dozens.
    public static let maximumPlaces = 200

    /// Usage: `let names = PlaceNameDirectory()`
    public init() {}

    /// Usage: `names.matches(forPlaceNamed: "paris")`
    public func matches(forPlaceNamed name: String) -> [PlaceMatch] {
        named(name, countryCodes: true)?.matches ?? []
    }

    /// A plain word of a search as a place: as `place:`, but a town by its own name only (not an
    /// alternate one: `pets` is not Pécs) and a country by its name only (`it`, `de` and `in` are
    /// words, not Italy, Germany and India), shown as its best-known place.
    ///
    /// Usage: `names.place(forWord: "paris")?.name  // "Paris, France"`
    public func place(forWord word: String) -> PlaceWord? {
        named(word, countryCodes: false)
    }

    private func named(_ name: String, countryCodes: Bool) -> PlaceWord? {
        let spaced = name.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " ")
        for candidate in [name, spaced] {
            if let found = named(exactly: candidate, countryCodes: countryCodes) { return found }
        }
        return nil
    }

    /// The radius around a town its photos are looked for in: its districts for a city.
    ///
    /// Usage: `PlaceNameDirectory.radiusKilometres(population: 2_100_000)  // 15`
    public static func radiusKilometres(population: Int) -> Double {
        switch population {
        case 1_000_000...: 15
        case 100_000...: 8
        default: 3
        }
    }

    private func named(exactly name: String, countryCodes: Bool) -> PlaceWord? {
        guard let places = try? PlaceDirectory.shared() else { return nil }
        var matches: [PlaceMatch] = []
        let regions = places.regions(named: name)
        let country = places.country(named: name).flatMap { countryCodes || $0.code.lowercased() != name.lowercased() ? $0 : nil }
        var towns = (countryCodes ? places.places(named: name) : places.places(officiallyNamed: name)).prefix(Self.maximumPlaces)
        if !countryCodes, country != nil || !regions.isEmpty {
            // A plain word that names a country or a state means it, not its small namesakes
            // (italy is not Italy, Texas); a city of the same name stays (luxembourg, singapore).
            towns = towns.filter { $0.population >= PlaceWord.prominentPopulation }
        }
        if !towns.isEmpty {
            matches.append(.places(towns.map(\.id)))
            // The areas of the larger towns of that name (a hamlet's own id is enough).
            for town in towns.prefix(20) where town.population >= 10_000 {
                matches.append(.area(NearbyArea(
                    latitude: town.latitude, longitude: town.longitude, radiusKilometres: Self.radiusKilometres(population: town.population))))
            }
        }
        matches += regions.map { .region(countryCode: $0.countryCode, admin1Code: $0.admin1Code) }
        if let country { matches.append(.country(country.code)) }
        guard !matches.isEmpty else { return nil }
        let shown: String
        if let country {
            shown = country.name
        } else if let region = regions.first {
            shown = [region.name, places.country(named: region.countryCode)?.name].compactMap { $0 }.joined(separator: ", ")
        } else {
            shown = [towns.first?.name, towns.first?.countryName].compactMap { $0 }.joined(separator: ", ")
        }
        let prominent = country != nil || !regions.isEmpty || (towns.first?.population ?? 0) >= PlaceWord.prominentPopulation
        return PlaceWord(matches: matches, name: shown, isProminent: prominent)
    }

    /// Usage: `names.countryCode(named: "Italy")  // "IT"`
    public func countryCode(named name: String) -> String? {
        (try? PlaceDirectory.shared())?.country(named: name)?.code
    }
}
