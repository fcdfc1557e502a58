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
        guard names.contains(words), let day = Day(today) else { return nil }
        switch words {
        case "today": return LocalTimeRange(lower: day.text, upper: day.adding(days: 1).text)
        case "yesterday": return LocalTimeRange(lower: day.adding(days: -1).text, upper: day.text)
        case "this week":
            let monday = day.monday
            return LocalTimeRange(lower: monday.text, upper: monday.adding(days: 7).text)
        case "last week":
            let monday = day.monday
            return LocalTimeRange(lower: monday.adding(days: -7).text, upper: monday.text)
        case "this month": return LocalTimeRange(lower: day.firstOfMonth.text, upper: day.firstOfMonth.adding(months: 1).text)
        case "last month": return LocalTimeRange(lower: day.firstOfMonth.adding(months: -1).text, upper: day.firstOfMonth.text)
        case "this year": return LocalTimeRange(lower: day.firstOfYear.text, upper: day.firstOfYear.adding(months: 12).text)
        default: return LocalTimeRange(lower: day.firstOfYear.adding(months: -12).text, upper: day.firstOfYear.text)
        }
    }

    /// Today in `zone` (this computer's time zone unless given), as `yyyy-MM-dd`.
    ///
    /// Usage: `let today = RelativeDays.today()`
    public static func today(at now: Date = Date(), in zone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: now)
        return Day(year: parts.year ?? 1970, month: parts.month ?? 1, day: parts.day ?? 1).text
    }

    /// A calendar day, counted in UTC so that no day is 23 or 25 hours long.
    private struct Day {
        static let calendar: Calendar = {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar
        }()

        let date: Date

        init(year: Int, month: Int, day: Int) {
            date = Self.calendar.date(from: DateComponents(year: year, month: month, day: day)) ?? Date(timeIntervalSince1970: 0)
        }

        init(date: Date) { self.date = date }

        /// A day written `yyyy-MM-dd`, of a real date.
        init?(_ text: String) {
            let parts = text.split(separator: "-").compactMap { Int($0) }
            guard text.count == 10, parts.count == 3, (1...12).contains(parts[1]), (1...31).contains(parts[2]) else { return nil }
            self.init(year: parts[0], month: parts[1], day: parts[2])
            guard text == self.text else { return nil }
        }

        var text: String {
            let parts = Self.calendar.dateComponents([.year, .month, .day], from: date)
            return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
        }

        func adding(days: Int) -> Day { Day(date: Self.calendar.date(byAdding: .day, value: days, to: date) ?? date) }
        func adding(months: Int) -> Day { Day(date: Self.calendar.date(byAdding: .month, value: months, to: date) ?? date) }

        /// The Monday of this day's week.
        var monday: Day { adding(days: -((Self.calendar.component(.weekday, from: date) + 5) % 7)) }

        var firstOfMonth: Day {
            let parts = Self.calendar.dateComponents([.year, .month], from: date)
            return Day(year: parts.year ?? 1970, month: parts.month ?? 1, day: 1)
        }

        var firstOfYear: Day { Day(year: Self.calendar.component(.year, from: date), month: 1, day: 1) }
    }
}
