/// Reading the date texts of EXIF and XMP. Anything that does not match the format exactly,
/// or holds impossible values, is unknown (nil).
extension DateTaken {
    /// An EXIF date ("2023:06:01 14:30:05", EXIF 2.32 §4.6.5, DateTimeOriginal) with its
    /// SubSecTime ("12") and OffsetTime ("+02:00") texts. Dashes instead of colons in the
    /// date are accepted (some phones write them); blanks, "0000:00:00 00:00:00" and other
    /// impossible values give nil. A bad sub-second or offset text drops only that part.
    static func exif(_ text: String, subsecond: String?, offset: String?, source: Source) -> DateTaken? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        guard bytes[4] == bytes[7], bytes[4] == UInt8(ascii: ":") || bytes[4] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: " ") || bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"),
            bytes[19...].allSatisfy({ $0 == UInt8(ascii: " ") }),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2), let second = number(bytes, 17, 2)
        else { return nil }
        let digits = subsecond.map { String($0.drop { $0 == " " }.prefix { $0 != " " }.prefix(9)) }
        let validDigits = digits.flatMap { $0.isEmpty || !$0.utf8.allSatisfy({ (0x30...0x39).contains($0) }) ? nil : $0 }
        return DateTaken(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            subsecondDigits: validDigits, utcOffsetMinutes: offset.flatMap(offsetMinutes), source: source)
    }

    /// An XMP date (ISO 8601 as XMP uses it: "2023-06-01T14:30:05.12+02:00", "…Z", or without
    /// an offset). Seconds may be left out; a date without a time gives nil, as a taken-at
    /// time with a made-up hour would sort wrongly among the day's photos.
    static func xmp(_ text: String, source: Source = .xmp) -> DateTaken? {
        let bytes = Array(text.trimmingSpaces.utf8)
        guard bytes.count >= 16, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            let year = number(bytes, 0, 4), let month = number(bytes, 5, 2), let day = number(bytes, 8, 2),
            let hour = number(bytes, 11, 2), let minute = number(bytes, 14, 2)
        else { return nil }
        var index = 16, second = 0
        var digits: String?
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let value = number(bytes, 17, 2) else { return nil }
            second = value
            index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                let fraction = bytes[(index + 1)...].prefix { (0x30...0x39).contains($0) }
                guard !fraction.isEmpty else { return nil }
                digits = String(decoding: fraction.prefix(9), as: UTF8.self)
                index += 1 + fraction.count
            }
        }
        var offset: Int?
        if index < bytes.count {
            let zone = String(decoding: bytes[index...], as: UTF8.self)
            guard let minutes = zone == "Z" ? 0 : offsetMinutes(zone) else { return nil }
            offset = minutes
        }
        return DateTaken(
            year: year, month: month, day: day, hour: hour, minute: minute, second: second,
            subsecondDigits: digits, utcOffsetMinutes: offset, source: source)
    }

    /// "+02:00" or "-05:30" (EXIF 2.32 OffsetTime; XMP's zone designator) in minutes; nil for
    /// blanks ("   :  ", the EXIF "unknown") and anything else.
    static func offsetMinutes(_ text: String) -> Int? {
        let bytes = Array(text.trimmingSpaces.utf8)
        guard bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
            bytes[3] == UInt8(ascii: ":"), let hours = number(bytes, 1, 2), let minutes = number(bytes, 4, 2),
            minutes < 60, hours * 60 + minutes <= 14 * 60
        else { return nil }
        let total = hours * 60 + minutes
        return bytes[0] == UInt8(ascii: "-") ? -total : total
    }

    /// The decimal number in `length` ASCII digits at `start`, or nil.
    private static func number(_ bytes: [UInt8], _ start: Int, _ length: Int) -> Int? {
        guard start >= 0, start + length <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[start..<start + length] {
            guard (0x30...0x39).contains(byte) else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }
}

extension String {
    /// Without leading and trailing spaces, tabs and line breaks (no Foundation needed).
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
