import Foundation

extension DateTaken {
    /// This date with the offset `timeZone` had at its wall time, when the file recorded none
    /// (most cameras, and phones before EXIF 2.31); marked ``utcOffsetIsInferred``. A recorded
    /// offset is kept. Where a daylight-saving change makes the wall time ambiguous (the hour
    /// that repeats in autumn) the earlier instant's offset is used; a wall time skipped in
    /// spring gets the offset from before the change.
    ///
    /// Usage: `let taken = taken.resolvingUTCOffset(in: TimeZone(identifier: place.timeZoneIdentifier)!)`
    public func resolvingUTCOffset(in timeZone: TimeZone) -> DateTaken {
        guard utcOffsetMinutes == nil else { return self }
        let wall = Double(wallSecondsSince1970)
        // Offsets in effect a day before and after bracket any change near this wall time.
        let before = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - 86_400))
        let after = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall + 86_400))
        // Each candidate offset is right if the zone really has it at the instant it implies.
        let valid = [before, after].filter { timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double($0))) == $0 }
        // Both valid: the repeated hour; the larger offset is the earlier instant.
        let offset = valid.max() ?? before
        return withUTCOffset(minutes: offset / 60, inferred: true) ?? self
    }
}

extension PhotoMetadata {
    /// The metadata with the date's missing offset inferred from the time zone of the place
    /// at its GPS position (``PlaceDirectory/nearestPlace(to:)``); unchanged without a date, a
    /// position, a place within 25 km or a known zone.
    ///
    /// Usage: `let metadata = image.metadata.resolvingUTCOffset(using: try PlaceDirectory.shared())`
    public func resolvingUTCOffset(using places: PlaceDirectory) -> PhotoMetadata {
        guard let taken = dateTaken, taken.utcOffsetMinutes == nil, let location,
            let place = places.nearestPlace(to: location), let zone = TimeZone(identifier: place.timeZoneIdentifier)
        else { return self }
        var resolved = self
        resolved.dateTaken = taken.resolvingUTCOffset(in: zone)
        return resolved
    }
}
