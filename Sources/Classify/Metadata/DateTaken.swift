import ClassifySupport
import Foundation

/// When a photo was taken, as the camera's clock showed it: the local wall time (year to
/// second, with the sub-second digits when recorded) plus the offset from UTC when the file
/// says it. Never a `Date` with a guessed time zone: most cameras record only the wall time,
/// and reading it in the indexing machine's zone would move photos from a trip by hours.
///
/// Usage:
/// ```swift
/// if let taken = image.metadata.dateTaken {
///     print(taken.iso8601)              // "2023-06-01T14:30:05.120+02:00" or "2023-06-01T14:30:05"
///     let instant = taken.instant       // a Date only when the offset is known
/// }
/// ```
public struct DateTaken: Sendable, Hashable {
    /// Where a date came from, most trusted first.
    /// Usage: `if taken.source == .exifOriginal { ... }`
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// EXIF DateTimeOriginal (with SubSecTimeOriginal and OffsetTimeOriginal): the shutter.
        /// Usage: `taken.source == .exifOriginal`
        case exifOriginal
        /// EXIF DateTimeDigitized, XMP's CreateDate twin (with SubSecTimeDigitized, OffsetTimeDigitized).
        /// Usage: `taken.source == .exifDigitized`
        case exifDigitized
        /// An XMP packet or sidecar: exif:DateTimeOriginal, else xmp:CreateDate.
        /// Usage: `taken.source == .xmp`
        case xmp
        /// The file's modification time: an exact instant, shown as UTC wall time.
        /// Usage: `taken.source == .fileModificationTime`
        case fileModificationTime
    }

    /// Calendar year (1826 or later: the oldest surviving photograph). Usage: `taken.year`
    public let year: Int
    /// Month, 1...12. Usage: `taken.month`
    public let month: Int
    /// Day of the month, valid for the month and year. Usage: `taken.day`
    public let day: Int
    /// Hour, 0...23. Usage: `taken.hour`
    public let hour: Int
    /// Minute, 0...59. Usage: `taken.minute`
    public let minute: Int
    /// Second, 0...59. Usage: `taken.second`
    public let second: Int
    /// The fraction of a second as recorded, as its decimal digits (1 to 9 of them: "12" is
    /// 0.12 s), or nil. Usage: `taken.subsecondDigits ?? "0"`
    public let subsecondDigits: String?
    /// The wall time's offset from UTC in minutes (+120 for +02:00), nil when unknown.
    /// Usage: `if let offset = taken.utcOffsetMinutes { ... }`
    public let utcOffsetMinutes: Int?
    /// Which field of which block the date came from. Usage: `taken.source`
    public let source: Source
    /// Whether `utcOffsetMinutes` was not recorded but inferred (from the time zone of the place
    /// the photo was taken in, ``resolvingUTCOffset(in:)``). Usage: `if taken.utcOffsetIsInferred { ... }`
    public let utcOffsetIsInferred: Bool

    /// A date taken from validated parts; nil when any part is out of range (month 13, day
    /// 32, February 30, hour 24, a year before 1826 or after 9999, an offset beyond ±14 hours)
    /// or the sub-second text is not 1 to 9 digits.
    ///
    /// Usage: `DateTaken(year: 2023, month: 6, day: 1, hour: 14, minute: 30, second: 5, utcOffsetMinutes: 120, source: .exifOriginal)`
    public init?(
        year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, subsecondDigits: String? = nil,
        utcOffsetMinutes: Int? = nil, source: Source, utcOffsetIsInferred: Bool = false
    ) {
        guard (1826...9999).contains(year), (1...12).contains(month),
            (1...CivilCalendar.daysIn(month: month, year: year)).contains(day), (0...23).contains(hour),
            (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        if let digits = subsecondDigits {
            guard (1...9).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
                return nil
            }
        }
        if let offset = utcOffsetMinutes, abs(offset) > 14 * 60 { return nil }
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.subsecondDigits = subsecondDigits
        self.utcOffsetMinutes = utcOffsetMinutes
        self.source = source
        self.utcOffsetIsInferred = utcOffsetIsInferred && utcOffsetMinutes != nil
    }

    /// The file modification time as a date taken: its UTC wall time with offset +00:00, so
    /// `instant` is exact; the wall time is not the photographer's local time.
    ///
    /// Usage: `DateTaken(fileModificationTime: attributes[.modificationDate] as! Date)`
    public init?(fileModificationTime: Date) {
        let seconds = fileModificationTime.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 1e12 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = CivilCalendar.floorDivide(whole, by: 86_400), secondOfDay = whole - days * 86_400
        let (year, month, day) = CivilCalendar.civilDate(fromDaysSince1970: days)
        let milliseconds = Int(((seconds - Double(whole)) * 1000).rounded(.down))
        self.init(
            year: year, month: month, day: day, hour: secondOfDay / 3600, minute: secondOfDay % 3600 / 60,
            second: secondOfDay % 60, subsecondDigits: milliseconds > 0 ? String(format: "%03d", milliseconds) : nil,
            utcOffsetMinutes: 0, source: .fileModificationTime)
    }

    /// The same wall time with `utcOffsetMinutes` set (e.g. found from the place's time zone).
    /// `inferred` marks an offset that was not recorded. Usage: `let placed = taken.withUTCOffset(minutes: 60)`
    public func withUTCOffset(minutes: Int?, inferred: Bool = false) -> DateTaken? {
        DateTaken(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            subsecondDigits: subsecondDigits, utcOffsetMinutes: minutes, source: source, utcOffsetIsInferred: inferred)
    }

    /// The fraction of a second in nanoseconds (0 when not recorded). Usage: `taken.nanosecond`
    public var nanosecond: Int {
        guard let digits = subsecondDigits else { return 0 }
        let padded = digits + String(repeating: "0", count: 9 - digits.count)
        return Int(padded) ?? 0
    }

    /// The moment the photo was taken; nil when the offset from UTC is unknown, since any
    /// guess would be a guess of the time zone.
    /// Usage: `if let instant = taken.instant { print(instant.timeIntervalSince1970) }`
    public var instant: Date? {
        guard let offset = utcOffsetMinutes else { return nil }
        let seconds = wallSecondsSince1970 - offset * 60
        return Date(timeIntervalSince1970: Double(seconds) + Double(nanosecond) / 1e9)
    }

    /// ISO 8601 text: `2023-06-01T14:30:05`, with `.120` sub-seconds when recorded and the
    /// offset (`+02:00`, `Z` for zero) when known.
    /// Usage: `print(taken.iso8601)`
    public var iso8601: String {
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day, hour, minute, second)
        if let digits = subsecondDigits { text += "." + digits }
        if let offset = utcOffsetMinutes {
            text += offset == 0 ? "Z" : String(format: "%@%02d:%02d", offset < 0 ? "-" : "+", abs(offset) / 60, abs(offset) % 60)
        }
        return text
    }

    /// The wall time read as if it were UTC, in seconds since 1970 (for offsets and ordering).
    var wallSecondsSince1970: Int {
        CivilCalendar.daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
    }
}
