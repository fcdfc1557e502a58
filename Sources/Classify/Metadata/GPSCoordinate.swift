/// Where a photo was taken: WGS 84 latitude and longitude in degrees (north and east
/// positive) and, when recorded, the altitude in metres above sea level.
///
/// Usage:
/// ```swift
/// if let location = image.metadata.location {
///     print(location.latitude, location.longitude, location.altitude ?? .nan)
/// }
/// ```
public struct GPSCoordinate: Sendable, Hashable {
    /// Degrees north of the equator, -90...90. Usage: `location.latitude`
    public let latitude: Double
    /// Degrees east of Greenwich, -180...180. Usage: `location.longitude`
    public let longitude: Double
    /// Metres above (negative: below) sea level, when recorded. Usage: `location.altitude`
    public let altitude: Double?

    /// Altitudes beyond these are damage: the Dead Sea shore is at -430 m, and airliners cruise
    /// below 13 000 m; a balloon photo up to 50 km is still believed.
    static let plausibleAltitudes = -12_000.0...50_000.0

    /// A coordinate; nil when latitude or longitude is out of range or not finite. An
    /// implausible altitude (beyond -12 km...50 km) is dropped, keeping the position.
    ///
    /// Usage: `GPSCoordinate(latitude: 48.8584, longitude: 2.2945, altitude: 35)`
    public init?(latitude: Double, longitude: Double, altitude: Double? = nil) {
        guard latitude.isFinite, longitude.isFinite, (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude.flatMap { $0.isFinite && Self.plausibleAltitudes.contains($0) ? $0 : nil }
    }
}
