import ClassifySupport
import Foundation

/// When, where and with what a photo was taken, as the index stores it (table `image_metadata`,
/// migration v6; see `MetadataStorage.swift`).
///
/// An image has a row once its metadata was read, even when the file says nothing (every field
/// nil); no row means it was indexed by a version that did not read metadata, and the next run
/// fills it in without classifying again.
///
/// Usage: `IndexedMetadata(taken: .init(local: "2023-06-01T14:30:05.120", utcOffsetMinutes: 120, source: .exif), latitude: 48.8584, longitude: 2.2945)`
public struct IndexedMetadata: Sendable, Hashable {
    /// The date taken.
    public var taken: TakenDate?
    /// Latitude in degrees, north positive. Usage: `metadata.latitude`
    public var latitude: Double?
    /// Longitude in degrees, east positive. Usage: `metadata.longitude`
    public var longitude: Double?
    /// Altitude in metres above sea level. Usage: `metadata.altitude`
    public var altitude: Double?
    /// Camera maker, as the file states it. Usage: `metadata.cameraMake`
    public var cameraMake: String?
    /// Camera model. Usage: `metadata.cameraModel`
    public var cameraModel: String?
    /// Lens model. Usage: `metadata.lens`
    public var lens: String?
    /// The populated place nearest the position (see `PlaceDirectory` in Classify).
    public var place: PlaceReference?

    /// Usage: `IndexedMetadata(cameraMake: "Apple", cameraModel: "iPhone 13")`
    public init(
        taken: TakenDate? = nil, latitude: Double? = nil, longitude: Double? = nil, altitude: Double? = nil,
        cameraMake: String? = nil, cameraModel: String? = nil, lens: String? = nil, place: PlaceReference? = nil
    ) {
        self.taken = taken
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.cameraMake = cameraMake
        self.cameraModel = cameraModel
        self.lens = lens
        self.place = place
    }

    /// Make and model in one line, the make left out when the model already starts with it
    /// ("Apple iPhone 13", "Canon EOS 5D", not "Canon Canon EOS 5D").
    ///
    /// Usage: `metadata.cameraName ?? "unknown camera"`
    public var cameraName: String? { Self.cameraName(make: cameraMake, model: cameraModel) }

    /// Make and model in one line (see ``cameraName``).
    ///
    /// Usage: `IndexedMetadata.cameraName(make: "Canon", model: "Canon EOS R5")  // "Canon EOS R5"`
    public static func cameraName(make: String?, model: String?) -> String? {
        switch (make, model) {
        case (nil, nil): return nil
        case (let make?, nil): return make
        case (nil, let model?): return model
        case (let make?, let model?):
            let firstWord = make.split(separator: " ").first.map(String.init) ?? make
            return model.lowercased().hasPrefix(firstWord.lowercased()) ? model : "\(make) \(model)"
        }
    }
}

/// A date taken: the wall-clock time the photo states, with its UTC offset when known.
///
/// Bare dates in searches mean this local time: a photo taken at 23:30 in Tokyo on 14 June is
/// found by `taken:2019-06-14`, wherever the search runs.
///
/// Usage: `TakenDate(local: "2019-06-14T23:30:00", utcOffsetMinutes: 540, source: .exif)`
public struct TakenDate: Sendable, Hashable {
    /// Where the date came from.
    public enum Source: String, Sendable, Hashable, CaseIterable {
        /// EXIF DateTimeOriginal.
        case exif
        /// EXIF CreateDate / DateTimeDigitized.
        case exifDigitized = "exif-digitized"
        /// An XMP packet or sidecar.
        case xmp
        /// The file's modification time (the photo states no date; never stored, shown in JSON).
        case file
    }

    /// Where the UTC offset came from.
    public enum OffsetSource: String, Sendable, Hashable {
        /// The file's own offset tag (EXIF OffsetTimeOriginal, an XMP date with a zone).
        case tag
        /// The time zone of the place the GPS position is in.
        case place
    }

    /// `YYYY-MM-DDTHH:MM:SS` with optional fraction: the photo's own local time.
    public var local: String
    /// Minutes east of UTC; nil when unknown.
    public var utcOffsetMinutes: Int?
    /// Usage: `date.source == .exif`
    public var source: Source
    /// Where the offset came from; nil when there is none.
    public var offsetSource: OffsetSource?

    /// Usage: `TakenDate(local: "2019-06-14T23:30:00", source: .exif)`
    public init(local: String, utcOffsetMinutes: Int? = nil, source: Source, offsetSource: OffsetSource? = nil) {
        self.local = local
        self.utcOffsetMinutes = utcOffsetMinutes
        self.source = source
        self.offsetSource = utcOffsetMinutes == nil ? nil : (offsetSource ?? .tag)
    }

    /// ISO 8601, with the offset when known (`2023-06-01T14:30:05.120+02:00`).
    ///
    /// Usage: `print(date.iso8601)`
    public var iso8601: String {
        guard let offset = utcOffsetMinutes else { return local }
        if offset == 0 { return local + "Z" }
        let sign = offset < 0 ? "-" : "+"
        return local + String(format: "%@%02d:%02d", sign, abs(offset) / 60, abs(offset) % 60)
    }

    /// The moment in UTC, when the offset is known.
    ///
    /// Usage: `if let instant = date.instant { print(instant) }`
    public var instant: Date? {
        guard let offset = utcOffsetMinutes, let wall = Self.wallSeconds(local) else { return nil }
        return Date(timeIntervalSince1970: wall - Double(offset * 60))
    }

    /// Microseconds that order dates taken: the UTC instant when the offset is known, else the
    /// local time read as UTC (off by the unknown offset, at most 14 hours), so a file time (an
    /// instant) sorts among them.
    ///
    /// Usage: `let key = date.sortKey`
    public var sortKey: Int64? {
        if let instant { return Timestamps.microseconds(instant) }
        return Self.wallSeconds(local).map { Timestamps.microseconds(Date(timeIntervalSince1970: $0)) }
    }

    /// Seconds since 1970 of a local `YYYY-MM-DDTHH:MM:SS[.fff]` read as if it were UTC.
    static func wallSeconds(_ local: String) -> Double? {
        let bytes = Array(local.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month)
        else { return nil }
        var fraction = 0.0
        if bytes.count > 20, bytes[19] == 0x2E, let digits = number(20..<bytes.count) {
            fraction = Double(digits) / pow(10, Double(bytes.count - 20))
        }
        return Double(CivilCalendar.daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second) + fraction
    }
}

/// The populated place a photo was taken at or near, by its GeoNames id, with the codes that
/// searches by country and region use without loading the place names.
///
/// Usage: `PlaceReference(id: 2988507, countryCode: "FR", admin1Code: "11")`
public struct PlaceReference: Sendable, Hashable {
    /// GeoNames id. Usage: `place.id`
    public var id: Int
    /// ISO 3166-1 alpha-2 country code, upper case. Usage: `place.countryCode`
    public var countryCode: String
    /// GeoNames first-level division code (a US state's postal code). Usage: `place.admin1Code`
    public var admin1Code: String

    /// Usage: `PlaceReference(id: 3169070, countryCode: "IT", admin1Code: "07")`
    public init(id: Int, countryCode: String, admin1Code: String) {
        self.id = id
        self.countryCode = countryCode
        self.admin1Code = admin1Code
    }
}
