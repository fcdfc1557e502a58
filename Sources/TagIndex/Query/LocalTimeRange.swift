import ClassifySupport
import Foundation

/// A span of local wall-clock time, as `taken:`, `after:`, `before:` and `modified:` write it:
/// bounds are `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM:SS` text, the lower one included, the upper one
/// excluded; nil is open. Text compares as time because both are ISO 8601 in the same layout,
/// which is how the index stores a photo's own local time (`image_metadata.taken_local`).
///
/// Usage: `LocalTimeRange(parsing: "2019-06..2019-08")` is June through August 2019.
public struct LocalTimeRange: Sendable, Hashable {
    /// The first local time inside, or nil for no lower bound.
    public var lower: String?
    /// The first local time after the range, or nil for no upper bound.
    public var upper: String?

    /// Usage: `LocalTimeRange(lower: "2020-01-01", upper: nil)`
    public init(lower: String?, upper: String?) {
        self.lower = lower
        self.upper = upper
    }

    /// A range as `taken:` reads it: a year, month or day (`2019`, `2019-06`, `2019-06-14`), two
    /// of them joined by `..` (either side may be left out), or one after `>=`, `>`, `<=` or `<`.
    /// Nil when the text is none of these or names an impossible date.
    ///
    /// Usage: `LocalTimeRange(parsing: ">=2020")`
    public init?(parsing text: String) {
        if let dots = text.range(of: "..") {
            let first = text[..<dots.lowerBound], second = text[dots.upperBound...]
            guard !(first.isEmpty && second.isEmpty) else { return nil }
            var range = LocalTimeRange(lower: nil, upper: nil)
            if !first.isEmpty {
                guard let period = Self.period(String(first)) else { return nil }
                range.lower = period.start
            }
            if !second.isEmpty {
                guard let period = Self.period(String(second)) else { return nil }
                range.upper = period.end
            }
            self = range
            return
        }
        for (prefix, make) in [
            (">=", { (p: (start: String, end: String)) in LocalTimeRange(lower: p.start, upper: nil) }),
            ("<=", { p in LocalTimeRange(lower: nil, upper: p.end) }),
            (">", { p in LocalTimeRange(lower: p.end, upper: nil) }),
            ("<", { p in LocalTimeRange(lower: nil, upper: p.start) }),
        ] where text.hasPrefix(prefix) {
            guard let period = Self.period(String(text.dropFirst(prefix.count))) else { return nil }
            self = make(period)
            return
        }
        guard let period = Self.period(text) else { return nil }
        self.init(lower: period.start, upper: period.end)
    }

    /// Both ranges at once (an `after:` and a `before:`, or two `taken:`).
    ///
    /// Usage: `let both = after.intersected(with: before)`
    public func intersected(with other: LocalTimeRange) -> LocalTimeRange {
        LocalTimeRange(
            lower: [lower, other.lower].compactMap { $0 }.max(),
            upper: [upper, other.upper].compactMap { $0 }.min())
    }

    /// The local time `text` starts at and the first one after it: a year, month or day spans
    /// the whole period; a moment (`2024-01-31T12:00[:00]`, an offset or `Z` after it ignored:
    /// bare times are the photo's own) spans nothing.
    ///
    /// Usage: `LocalTimeRange.period("2019-06")  // ("2019-06-01", "2019-07-01")`
    public static func period(_ text: String) -> (start: String, end: String)? {
        let parts = text.split(separator: "T", maxSplits: 1, omittingEmptySubsequences: false)
        let date = parts[0].split(separator: "-", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...3).contains(date.count), !date.contains(nil), parts[0].first != "-" else { return nil }
        let year = date[0]!, month = date.count > 1 ? date[1]! : nil, day = date.count > 2 ? date[2]! : nil
        guard (1...9999).contains(year), parts[0].prefix(while: { $0 != "-" }).count == 4 else { return nil }
        if let month, !(1...12).contains(month) { return nil }
        if let month, let day, !(1...CivilCalendar.daysIn(month: month, year: year)).contains(day) { return nil }
        if parts.count == 2 {
            guard let month, let day, let time = Self.time(String(parts[1])) else { return nil }
            let moment = String(format: "%04d-%02d-%02dT%@", year, month, day, time)
            return (moment, moment)
        }
        let start = String(format: "%04d-%02d-%02d", year, month ?? 1, day ?? 1)
        // Past the last day of 9999, "9999-13" still sorts after every time of that year.
        if year == 9999, month ?? 12 == 12, day ?? 31 == 31 { return (start, "9999-13") }
        let end: String
        switch (month, day) {
        case (nil, _): end = String(format: "%04d-01-01", year + 1)
        case (let month?, nil): end = month == 12 ? String(format: "%04d-01-01", year + 1) : String(format: "%04d-%02d-01", year, month + 1)
        case (let month?, let day?):
            let next = CivilCalendar.civilDate(fromDaysSince1970: CivilCalendar.daysSince1970(year: year, month: month, day: day) + 1)
            end = String(format: "%04d-%02d-%02d", next.year, next.month, next.day)
        }
        return (start, end)
    }

    /// `HH:MM[:SS]` (anything after the seconds, such as `Z` or `+02:00`, left out) as `HH:MM:SS`.
    private static func time(_ text: String) -> String? {
        let clock = text.prefix { $0.isNumber || $0 == ":" }
        let fields = clock.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard (2...3).contains(fields.count), !fields.contains(nil), fields.allSatisfy({ $0! >= 0 }),
            fields[0]! < 24, fields[1]! < 60, fields.count < 3 || fields[2]! < 60
        else { return nil }
        return String(format: "%02d:%02d:%02d", fields[0]!, fields[1]!, fields.count == 3 ? fields[2]! : 0)
    }

    /// A bound as an instant, read in `timeZone` (file times have no local time of their own).
    ///
    /// Usage: `let start = LocalTimeRange.instant("2019-06-01", in: .current)`
    public static func instant(_ bound: String, in timeZone: TimeZone) -> Date? {
        guard let wall = TakenDate.wallSeconds(bound.count == 10 ? bound + "T00:00:00" : bound) else { return nil }
        // The offset at the wall time read as UTC is right except within hours of a change.
        let guess = Date(timeIntervalSince1970: wall)
        let offset = timeZone.secondsFromGMT(for: guess.addingTimeInterval(-Double(timeZone.secondsFromGMT(for: guess))))
        return Date(timeIntervalSince1970: wall - Double(offset))
    }
}

/// A circle on the map, as `near:48.85,2.35` or `near:48.85,2.35,10km` writes it.
///
/// Usage: `NearbyArea(parsing: "48.85,2.35,10km")`
public struct NearbyArea: Sendable, Hashable {
    /// Centre latitude in degrees. Usage: `area.latitude`
    public var latitude: Double
    /// Centre longitude in degrees. Usage: `area.longitude`
    public var longitude: Double
    /// Radius in kilometres. Usage: `area.radiusKilometres`
    public var radiusKilometres: Double

    /// The radius when none is given (5 km: a town and its edges).
    public static let defaultRadiusKilometres = 5.0

    /// Usage: `NearbyArea(latitude: 48.85, longitude: 2.35, radiusKilometres: 2)`
    public init(latitude: Double, longitude: Double, radiusKilometres: Double = defaultRadiusKilometres) {
        self.latitude = latitude
        self.longitude = longitude
        self.radiusKilometres = radiusKilometres
    }

    /// `LAT,LON` or `LAT,LON,RADIUS` with the radius in `km` or `m` (kilometres when unmarked);
    /// nil for a position off the globe or a radius that is not between 1 m and 20,000 km.
    ///
    /// Usage: `NearbyArea(parsing: "-22.95,-43.21,500m")`
    public init?(parsing text: String) {
        let fields = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        guard (2...3).contains(fields.count), let latitude = Double(fields[0]), let longitude = Double(fields[1]),
            (-90...90).contains(latitude), (-180...180).contains(longitude)
        else { return nil }
        var radius = Self.defaultRadiusKilometres
        if fields.count == 3 {
            let field = fields[2].lowercased()
            let (number, scale) = field.hasSuffix("km") ? (field.dropLast(2), 1.0) : field.hasSuffix("m") ? (field.dropLast(), 0.001) : (Substring(field), 1.0)
            guard let value = Double(number), value.isFinite else { return nil }
            radius = value * scale
        }
        guard (0.001...20_000).contains(radius) else { return nil }
        self.init(latitude: latitude, longitude: longitude, radiusKilometres: radius)
    }
}
