/// A populated place from GeoNames (city, town, village or district of at least 500 people,
/// or a seat of government), as found by ``PlaceDirectory``.
///
/// Usage:
/// ```swift
/// if let place = try PlaceDirectory.shared().nearestPlace(to: location) {
///     print(place.name, place.admin1Name ?? place.admin1Code, place.countryName, place.timeZoneIdentifier)
/// }
/// ```
public struct Place: Sendable, Hashable, Identifiable {
    /// The GeoNames id (https://www.geonames.org/<id>). Usage: `place.id`
    public let id: Int
    /// The place's name in GeoNames (usually the local name in Latin script). Usage: `place.name`
    public let name: String
    /// Latitude of its centre, degrees north. Usage: `place.latitude`
    public let latitude: Double
    /// Longitude of its centre, degrees east. Usage: `place.longitude`
    public let longitude: Double
    /// Population as GeoNames gives it (0 for some seats). Usage: `place.population`
    public let population: Int
    /// ISO 3166-1 alpha-2 country code, e.g. "FR". Usage: `place.countryCode`
    public let countryCode: String
    /// The country's English name, e.g. "France". Usage: `place.countryName`
    public let countryName: String
    /// The first-level division's GeoNames code ("CA" for California, "44" for Grand Est).
    /// Usage: `place.admin1Code`
    public let admin1Code: String
    /// The first-level division's name; only US states are named ("California"), nil elsewhere.
    /// Usage: `place.admin1Name ?? place.admin1Code`
    public let admin1Name: String?
    /// The IANA time zone, e.g. "Europe/Paris". Usage: `TimeZone(identifier: place.timeZoneIdentifier)`
    public let timeZoneIdentifier: String
}

/// A country as the places file names it.
///
/// Usage: `let france = try PlaceDirectory.shared().country(named: "france")  // code "FR"`
public struct Country: Sendable, Hashable {
    /// ISO 3166-1 alpha-2 code, e.g. "DE". Usage: `country.code`
    public let code: String
    /// English name, e.g. "Germany". Usage: `country.name`
    public let name: String
}
