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
        let spaced = name.replacingOccurrences(of: "-", with: " ").replacingOccurrences(of: "_", with: " ")
        for candidate in [name, spaced] {
            let found = matches(exactly: candidate)
            if !found.isEmpty { return found }
        }
        return []
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

    private func matches(exactly name: String) -> [PlaceMatch] {
        guard let places = try? PlaceDirectory.shared() else { return [] }
        var matches: [PlaceMatch] = []
        let towns = places.places(named: name).prefix(Self.maximumPlaces)
        if !towns.isEmpty {
            matches.append(.places(towns.map(\.id)))
            // The areas of the larger towns of that name (a hamlet's own id is enough).
            for town in towns.prefix(20) where town.population >= 10_000 {
                matches.append(.area(NearbyArea(
                    latitude: town.latitude, longitude: town.longitude, radiusKilometres: Self.radiusKilometres(population: town.population))))
            }
        }
        matches += places.regions(named: name).map { .region(countryCode: $0.countryCode, admin1Code: $0.admin1Code) }
        if let country = places.country(named: name) { matches.append(.country(country.code)) }
        return matches
    }

    /// Usage: `names.countryCode(named: "Italy")  // "IT"`
    public func countryCode(named name: String) -> String? {
        (try? PlaceDirectory.shared())?.country(named: name)?.code
    }
}
