import ClassifySupport
import Foundation

/// Spans of days named from today, as people search their own photos: `today`, `yesterday`,
/// `this week`, `last week` (weeks start on Monday), `this month`, `last month`, `this year`,
/// `last year`. Days are local days, compared with each photo's own local time as `taken:` is.
/// A plain search reads them as words (`beach last year`, `june last year`); `taken:` takes them
/// with `-` for the space (`taken:last-month`).
///
/// Usage: `RelativeDays.range("last year", today: "2026-11-30")  // 2025-01-01 ..< 2026-01-01`
public enum RelativeDays {
    /// Every name, as a plain search types it.
    ///
    /// Usage: `RelativeDays.names.contains("last week")`
    public static let names = [
        "today", "yesterday", "this week", "last week", "this month", "last month", "this year", "last year",
    ]

    /// The most words a name spans.
    static let maximumWords = 2

    /// The span `name` (any case; `-` or `_` for the space) names, counted from `today`
    /// (`yyyy-MM-dd`); nil when it is not one of ``names`` or `today` is not a date.
    ///
    /// Usage: `RelativeDays.range("taken:last-month".dropFirst(6), today: query.today)`
    public static func range(_ name: some StringProtocol, today: String) -> LocalTimeRange? {
        let words = name.lowercased().split(whereSeparator: { $0 == " " || $0 == "-" || $0 == "_" }).joined(separator: " ")
        let fields = today.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int($0) }
        guard names.contains(words), today.count == 10, fields.count == 3, LocalTimeRange.period(today) != nil else { return nil }
        let (year, month) = (fields[0], fields[1])
        let day = CivilCalendar.daysSince1970(year: year, month: month, day: fields[2])
        // 1970-01-01 was a Thursday, three days after its week's Monday.
        let monday = day - (day + 3 - CivilCalendar.floorDivide(day + 3, by: 7) * 7)
        switch words {
        case "today": return span(today)
        case "yesterday": return span(text(day - 1))
        case "this week": return LocalTimeRange(lower: text(monday), upper: text(monday + 7))
        case "last week": return LocalTimeRange(lower: text(monday - 7), upper: text(monday))
        case "this month": return span(String(today.prefix(7)))
        case "last month": return span(month == 1 ? String(format: "%04d-12", year - 1) : String(format: "%04d-%02d", year, month - 1))
        case "this year": return span(String(today.prefix(4)))
        default: return span(String(format: "%04d", year - 1))
        }
    }

    /// Today in `zone` (this computer's time zone unless given), as `yyyy-MM-dd`.
    ///
    /// Usage: `let today = RelativeDays.today()`
    public static func today(at now: Date = Date(), in zone: TimeZone = .current) -> String {
        let local = Int(now.timeIntervalSince1970.rounded(.down)) + zone.secondsFromGMT(for: now)
        return text(CivilCalendar.floorDivide(local, by: 86_400))
    }

    /// The day, month or year `period` (as `taken:` writes it) spans; nil past the calendar's years.
    private static func span(_ period: String) -> LocalTimeRange? {
        LocalTimeRange.period(period).map { LocalTimeRange(lower: $0.start, upper: $0.end) }
    }

    /// A day counted from 1970-01-01, as `yyyy-MM-dd`.
    private static func text(_ daysSince1970: Int) -> String {
        let date = CivilCalendar.civilDate(fromDaysSince1970: daysSince1970)
        return String(format: "%04d-%02d-%02d", date.year, date.month, date.day)
    }
}
