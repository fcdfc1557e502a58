import Foundation

/// The one reading of the dates and sizes a search filters by, for the query language
/// (`after:2024-01-01`, `minsize:2MB`) and the command line's options (`--after 2024-01-01`,
/// `--min-size 2M`) alike.
///
/// - A **bare date** (`2024-01-31`) is midnight at the start of that day in the time zone of the
///   machine running the search (`TZ`, else the system's); a timestamp with an offset or `Z`
///   (`2024-01-31T12:00:00Z`, `2024-01-31T12:00:00+02:00`) is that instant. Years 1 to 9999.
/// - A **size** is bytes, or a number with `K`/`KB`, `M`/`MB`, `G`/`GB` (powers of 1,024,
///   case and spaces ignored): `500KB`, `2 mb`, `1.5G`.
///
/// Usage:
/// ```swift
/// let day = FilterValue.date("2024-01-31")          // local midnight
/// let bytes = FilterValue.bytes("2M")               // 2_097_152
/// ```
public enum FilterValue {
    /// The instant `text` names, or nil when it is not a date (see the type's description).
    ///
    /// Usage: `let after = FilterValue.date("2024-01-31", timeZone: .gmt)`
    public static func date(_ text: String, timeZone: TimeZone = .current) -> Date? {
        let full = ISO8601DateFormatter()
        let day = ISO8601DateFormatter()
        day.formatOptions = [.withFullDate]
        day.timeZone = timeZone
        // Foundation reads things like "2e23-01-02" as days hundreds of thousands of years away.
        guard let date = full.date(from: text) ?? day.date(from: text),
            (-62_200_000_000...253_402_300_799).contains(date.timeIntervalSince1970)
        else { return nil }
        return date
    }

    /// The number of bytes `text` names, or nil when it is not a size (see the type's description).
    ///
    /// Usage: `FilterValue.bytes("500KB") == 512_000`
    public static func bytes(_ text: String) -> Int64? {
        let upper = text.uppercased().filter { $0 != " " }
        let units: [(String, Int64)] = [
            ("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10), ("B", 1),
        ]
        for (suffix, scale) in units where upper.hasSuffix(suffix) {
            // 2^62 bytes is far beyond any file and keeps the conversion to Int64 in range.
            guard let number = Double(upper.dropLast(suffix.count)), number >= 0, number * Double(scale) < 0x1p62 else { return nil }
            return Int64((number * Double(scale)).rounded())
        }
        guard let number = Int64(upper), number >= 0 else { return nil }
        return number
    }
}
