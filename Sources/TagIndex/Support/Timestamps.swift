import Foundation

/// Dates as integer microseconds since 1970 (the stored form of times).
package enum Timestamps {
    /// Saturates beyond about ±292,000 years instead of trapping: file systems with 64-bit
    /// timestamps can hold such modification times, and a query can name such a day. Equal dates
    /// still give equal values, so an unchanged file stays unchanged.
    package static func microseconds(_ date: Date) -> Int64 {
        let value = (date.timeIntervalSince1970 * 1_000_000).rounded()
        if value.isNaN { return 0 }
        if value >= 0x1p63 { return .max }
        if value < -0x1p63 { return .min }
        return Int64(value)
    }

    package static func date(_ microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }
}
