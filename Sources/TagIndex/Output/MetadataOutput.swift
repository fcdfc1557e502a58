import Foundation

/// A GPS position in JSON: degrees, altitude in metres above sea level.
///
/// Usage: `GPSOutput(latitude: 48.8584, longitude: 2.2945, altitude: 35)`
public struct GPSOutput: Codable, Sendable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?

    /// Degrees to 7 decimals (about a centimetre), altitude to 0.1 m.
    ///
    /// Usage: `GPSOutput(latitude: 48.8584, longitude: 2.2945, altitude: nil)`
    public init(latitude: Double, longitude: Double, altitude: Double?) {
        self.latitude = JSONOutput.rounded(latitude, decimals: 7)
        self.longitude = JSONOutput.rounded(longitude, decimals: 7)
        self.altitude = altitude.map { JSONOutput.rounded($0, decimals: 1) }
    }
}

/// The camera and lens that took a photo, in JSON.
///
/// Usage: `CameraOutput(make: "Apple", model: "iPhone 13", lens: nil)`
public struct CameraOutput: Codable, Sendable, Hashable {
    public var make: String?
    public var model: String?
    public var lens: String?

    /// Usage: `CameraOutput(make: "Canon", model: "Canon EOS R5", lens: "RF24-70mm F2.8 L IS USM")`
    public init(make: String?, model: String?, lens: String?) {
        self.make = make
        self.model = model
        self.lens = lens
    }
}

extension CameraOutput {
    /// Make and model in one line, as ``IndexedMetadata/cameraName`` writes it.
    ///
    /// Usage: `camera.displayName ?? "unknown camera"`
    public var displayName: String? { IndexedMetadata.cameraName(make: make, model: model) }
}

/// The place a photo was taken at, in JSON: its GeoNames id and country code always, its names
/// when the places file that resolved it is at hand.
///
/// Usage: `PlaceOutput(PlaceReference(id: 2988507, countryCode: "FR", admin1Code: "11"), name: "Paris")`
public struct PlaceOutput: Codable, Sendable, Hashable {
    /// GeoNames id (`https://www.geonames.org/<id>`).
    public var id: Int
    public var name: String?
    /// The first-level division (a US state, a French région).
    public var region: String?
    public var country: String?
    public var countryCode: String

    /// Name, region and country in one line ("Paris, France"), the code when the name is unknown.
    ///
    /// Usage: `print(place.displayName)`
    public var displayName: String {
        [name, region, country ?? countryCode].compactMap { $0 }.joined(separator: ", ")
    }

    /// Usage: `PlaceOutput(reference, name: place.name, region: place.admin1Name, country: place.countryName)`
    public init(_ reference: PlaceReference, name: String? = nil, region: String? = nil, country: String? = nil) {
        id = reference.id
        self.name = name
        self.region = region
        self.country = country
        countryCode = reference.countryCode
    }
}

/// The metadata fields of an image's JSON (`search`, `show`, the gallery's API): `taken` (ISO
/// 8601 in the photo's own local time, with the offset when known), `takenFrom` (`exif`,
/// `exif-digitized`, `xmp`, or `file` when the photo states no date and its modification time,
/// in this machine's time zone, stands in), `gps`, `camera` and `place`.
///
/// Usage: `let fields = MetadataFields(stored, modified: image.modificationTime) { PlaceOutput($0) }`
public struct MetadataFields: Sendable, Hashable {
    public var taken: String?
    public var takenFrom: String?
    public var gps: GPSOutput?
    public var camera: CameraOutput?
    public var place: PlaceOutput?

    /// The fields of `metadata` (all nil for none, but the date); `modified` (the file's time, nil
    /// for a failed file) stands in for a date the photo does not state; `place` names a stored
    /// place.
    ///
    /// Usage: `MetadataFields(metadata, modified: hit.modificationTime, place: { PlaceOutput($0) })`
    public init(
        _ metadata: IndexedMetadata?, modified: Date?, timeZone: TimeZone = .current,
        place: (PlaceReference) -> PlaceOutput = { PlaceOutput($0) }
    ) {
        if let taken = metadata?.taken {
            self.taken = taken.iso8601
            takenFrom = taken.source.rawValue
        } else if let modified {
            let formatter = ISO8601DateFormatter()
            formatter.timeZone = timeZone
            self.taken = formatter.string(from: modified)
            takenFrom = TakenDate.Source.file.rawValue
        }
        guard let metadata else { return }
        if let latitude = metadata.latitude, let longitude = metadata.longitude {
            gps = GPSOutput(latitude: latitude, longitude: longitude, altitude: metadata.altitude)
        }
        if metadata.cameraMake != nil || metadata.cameraModel != nil || metadata.lens != nil {
            camera = CameraOutput(make: metadata.cameraMake, model: metadata.cameraModel, lens: metadata.lens)
        }
        self.place = metadata.place.map(place)
    }
}
