import ClassifySupport
import Foundation

/// What a place name in a search (`place:paris`, `country:italy`) stands for.
///
/// Usage: `PlaceMatch.places([2988507])`
public enum PlaceMatch: Sendable, Hashable {
    /// Populated places by GeoNames id (the place a photo's position resolved to).
    case places([Int])
    /// Around a town: photos of its districts and edges, whose nearest place has another name.
    case area(NearbyArea)
    /// A first-level division (a US state) of a country.
    case region(countryCode: String, admin1Code: String)
    /// A country by ISO 3166-1 alpha-2 code.
    case country(String)
}

/// Turns place names into what the index stores (place ids, region and country codes). The index
/// stores ids and codes only; the names live in the places file, which the `Classify` side loads
/// (`PlaceDirectory`), so the search language asks through this protocol.
///
/// Usage: `PlaceNames.install(resolver)` once, before parsing queries that name places.
public protocol PlaceNameResolver: Sendable {
    /// The places, US states and countries called `name` (official or alternate name, any case,
    /// accents ignored); empty when none.
    func matches(forPlaceNamed name: String) -> [PlaceMatch]
    /// The ISO code of the country called or coded `name`; nil when none.
    func countryCode(named name: String) -> String?
}

/// The resolver queries use unless given one: installed once by a program that has the places
/// file (the command line and the gallery install it at start).
///
/// Usage: `PlaceNames.install(PlaceNameDirectory())`
public enum PlaceNames {
    private static let installed = Locked<(any PlaceNameResolver)?>(nil)

    /// Makes `resolver` the one `Query(parsing:)` uses.
    ///
    /// Usage: `PlaceNames.install(resolver)`
    public static func install(_ resolver: any PlaceNameResolver) {
        installed.withLock { $0 = resolver }
    }

    /// The installed resolver, nil when none was.
    ///
    /// Usage: `let resolver = PlaceNames.current`
    public static var current: (any PlaceNameResolver)? { installed.withLock { $0 } }
}
