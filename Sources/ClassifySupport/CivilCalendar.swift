/// Proleptic Gregorian calendar arithmetic on plain integers, for dates that carry no time zone
/// (a photo's own local time) and years Foundation's calendars read oddly.
///
/// Usage: `CivilCalendar.daysSince1970(year: 2023, month: 6, day: 1) == 19_509`
public enum CivilCalendar {
    /// Usage: `CivilCalendar.isLeapYear(2024)`
    public static func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// Days in `month` (1...12) of `year`.
    ///
    /// Usage: `CivilCalendar.daysIn(month: 2, year: 2024) == 29`
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01, counting in 400-year eras of 146 097 days with March as the first
    /// month, so February's leap day falls at the end of the counted year.
    ///
    /// Usage: `CivilCalendar.daysSince1970(year: 1969, month: 12, day: 31) == -1`
    public static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(shiftedYear, by: 400)
        let yearOfEra = shiftedYear - era * 400
        let monthFromMarch = (month + 9) % 12
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The inverse of `daysSince1970`.
    ///
    /// Usage: `let (year, month, day) = CivilCalendar.civilDate(fromDaysSince1970: 19_509)`
    public static func civilDate(fromDaysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, by: 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Division rounding towards minus infinity (-1 / 86 400 is day -1, not day 0).
    ///
    /// Usage: `CivilCalendar.floorDivide(-1, by: 86_400) == -1`
    public static func floorDivide(_ value: Int, by divisor: Int) -> Int {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
