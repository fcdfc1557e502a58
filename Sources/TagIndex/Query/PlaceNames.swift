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
    /// What a plain word of a search (`paris`, `new york`) names as a place, nil when nothing.
    func place(forWord word: String) -> PlaceWord?
}

extension PlaceNameResolver {
    /// The matches of `word` as a place name; prominent when a country or region is among them.
    ///
    /// Usage: `resolver.place(forWord: "italy")?.isProminent`
    public func place(forWord word: String) -> PlaceWord? {
        let matches = matches(forPlaceNamed: word)
        guard !matches.isEmpty else { return nil }
        let prominent = matches.contains { if case .places = $0 { false } else if case .area = $0 { false } else { true } }
        return PlaceWord(matches: matches, name: word, isProminent: prominent)
    }
}

/// A plain word that names a place: what it matches, the name to show, and whether it is
/// prominent enough (a country, a US state, a town of ``PlaceWord/prominentPopulation`` people)
/// to beat a label found only by free text (`china` is the country; `kitchen`, a hamlet's name,
/// stays the label).
///
/// Usage: `PlaceWord(matches: [.country("IT")], name: "Italy", isProminent: true)`
public struct PlaceWord: Sendable, Hashable {
    /// Towns of this many people or more are prominent.
    ///
    /// Usage: `town.population >= PlaceWord.prominentPopulation`
    public static let prominentPopulation = 100_000

    /// What a photo's place must match (any of them).
    public var matches: [PlaceMatch]
    /// The best-known place of that name, to show (`Paris, France`).
    public var name: String
    /// A country, a US state, or a town of at least ``prominentPopulation`` people.
    public var isProminent: Bool

    /// Usage: `PlaceWord(matches: matches, name: "Paris, France", isProminent: true)`
    public init(matches: [PlaceMatch], name: String, isProminent: Bool) {
        self.matches = matches
        self.name = name
        self.isProminent = isProminent
    }
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
