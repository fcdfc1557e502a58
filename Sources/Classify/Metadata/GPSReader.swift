/// Reads a ``GPSCoordinate`` from an EXIF GPS IFD (EXIF 2.32 §4.6.6).
///
/// What counts as unknown, beyond malformed or out-of-range values:
/// - GPSStatus "V" (measurement void): the receiver said it had no fix.
/// - A missing N/S or E/W reference: the hemisphere, so the sign, is unknown.
/// - Exactly 0°, 0° without evidence of a fix (GPSStatus "A" or a GPSDOP): this is what
///   phones and cameras write when the receiver never locked, and "Null Island" in the Gulf
///   of Guinea is almost never where a photo was taken. With that evidence it is believed.
enum GPSReader {
    enum Tag {
        static let latitudeRef: UInt16 = 0x0001
        static let latitude: UInt16 = 0x0002
        static let longitudeRef: UInt16 = 0x0003
        static let longitude: UInt16 = 0x0004
        static let altitudeRef: UInt16 = 0x0005
        static let altitude: UInt16 = 0x0006
        static let status: UInt16 = 0x0009
        static let dop: UInt16 = 0x000B
    }

    static func coordinate(_ tiff: TIFFStructure, _ gps: TIFFStructure.Directory) -> GPSCoordinate? {
        let status = gps[Tag.status].flatMap(tiff.string)?.trimmingSpaces.uppercased()
        guard status != "V",
            let latitude = angle(tiff, gps, Tag.latitude, reference: Tag.latitudeRef, positive: "N", negative: "S"),
            let longitude = angle(tiff, gps, Tag.longitude, reference: Tag.longitudeRef, positive: "E", negative: "W")
        else { return nil }
        if latitude == 0 && longitude == 0 {
            let hasFixEvidence = status == "A" || gps[Tag.dop].flatMap(tiff.rationals)?.first.flatMap({ $0 }) != nil
            guard hasFixEvidence else { return nil }
        }
        return GPSCoordinate(latitude: latitude, longitude: longitude, altitude: altitude(tiff, gps))
    }

    /// Degrees, minutes and seconds (RATIONAL x 3; fewer values are accepted, as some writers
    /// put decimal degrees in the first) signed by the reference letter.
    private static func angle(
        _ tiff: TIFFStructure, _ gps: TIFFStructure.Directory, _ tag: UInt16, reference: UInt16,
        positive: String, negative: String
    ) -> Double? {
        guard let entry = gps[tag], (1...3).contains(entry.count), let parts = tiff.rationals(entry),
            let letter = gps[reference].flatMap(tiff.string)?.trimmingSpaces.uppercased(),
            letter == positive || letter == negative
        else { return nil }
        var values: [Double] = []
        for part in parts {
            guard let part, part.isFinite, part >= 0 else { return nil }
            values.append(part)
        }
        // Minutes and seconds of 60 or more are not a position but damage.
        guard values.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
        let degrees = values[0] + (values.count > 1 ? values[1] / 60 : 0) + (values.count > 2 ? values[2] / 3600 : 0)
        return letter == negative ? -degrees : degrees
    }

    /// Metres, negative when GPSAltitudeRef is 1 (below sea level).
    private static func altitude(_ tiff: TIFFStructure, _ gps: TIFFStructure.Directory) -> Double? {
        guard let entry = gps[Tag.altitude], entry.count == 1, let value = tiff.rationals(entry)?.first ?? nil else {
            return nil
        }
        let belowSeaLevel = gps[Tag.altitudeRef].flatMap(tiff.unsignedIntegers)?.first == 1
        return belowSeaLevel ? -value : value
    }
}
