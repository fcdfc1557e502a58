import Classify
import Foundation
import TagIndex

/// Turns what a decode read from a file (``PhotoMetadata``) into what the index stores
/// (``IndexedMetadata``): the XMP sidecar fills what the file leaves out, a date without an
/// offset takes the time zone of the place it was taken at, and the position gets its nearest
/// populated place. What is stored comes from the file's content only (a copy of the file gets
/// the same row), so a photo that states no date stores none: searches and JSON fall back to the
/// file's modification time, marked as such (``MetadataFields``).
///
/// Usage: `let stored = PhotoMetadataReader.shared.indexed(image.metadata, path: facts.path)`
public struct PhotoMetadataReader: Sendable {
    /// The places positions resolve to; nil when the places file does not load (positions are
    /// kept, places and inferred offsets are unknown).
    public let places: PlaceDirectory?

    /// Usage: `PhotoMetadataReader(places: try? PlaceDirectory.shared())`
    public init(places: PlaceDirectory?) {
        self.places = places
    }

    /// A reader with the shared places file (loaded once, on first use).
    ///
    /// Usage: `let reader = PhotoMetadataReader.shared`
    public static var shared: PhotoMetadataReader { PhotoMetadataReader(places: try? PlaceDirectory.shared()) }

    /// What the index stores for the file at `path` (its XMP sidecar is looked for beside it)
    /// whose decode read `embedded`.
    ///
    /// Usage: `let stored = reader.indexed(result.metadata, path: facts.path)`
    public func indexed(_ embedded: PhotoMetadata, path: String) -> IndexedMetadata {
        read(embedded, path: path).stored
    }

    /// What the index stores for the file at `path` (as ``indexed(_:path:)``), and the face
    /// regions its XMP names (the sidecar's, else the file's own).
    ///
    /// Usage: `let (stored, regions) = reader.read(result.metadata, path: facts.path)`
    public func read(_ embedded: PhotoMetadata, path: String) -> (stored: IndexedMetadata, faceRegions: [FaceRegion]) {
        var photo = embedded
        if let sidecar = XMPSidecarReader.metadata(forImageAt: URL(fileURLWithPath: path)) {
            photo = photo.filling(from: sidecar)
        }
        if let places { photo = photo.resolvingUTCOffset(using: places) }
        var stored = IndexedMetadata(
            taken: photo.dateTaken.map(Self.takenDate),
            latitude: photo.location?.latitude, longitude: photo.location?.longitude, altitude: photo.location?.altitude,
            cameraMake: photo.camera?.make, cameraModel: photo.camera?.model, lens: photo.camera?.lensModel)
        if let location = photo.location, let place = places?.nearestPlace(to: location) {
            stored.place = PlaceReference(id: place.id, countryCode: place.countryCode, admin1Code: place.admin1Code)
        }
        return (stored, photo.faceRegions)
    }

    private static func takenDate(_ date: DateTaken) -> TakenDate {
        var local = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", date.year, date.month, date.day, date.hour, date.minute, date.second)
        if let digits = date.subsecondDigits { local += "." + digits }
        let source: TakenDate.Source =
            switch date.source {
            case .exifOriginal: .exif
            case .exifDigitized: .exifDigitized
            case .xmp: .xmp
            case .fileModificationTime: .file
            }
        let offsetSource: TakenDate.OffsetSource? = date.utcOffsetMinutes == nil ? nil : date.utcOffsetIsInferred ? .place : .tag
        return TakenDate(local: local, utcOffsetMinutes: date.utcOffsetMinutes, source: source, offsetSource: offsetSource)
    }
}

extension PhotoMetadataReader {
    /// A stored place with its names from the places file (codes only when the file does not
    /// load or no longer has the place).
    ///
    /// Usage: `MetadataFields(stored, place: reader.placeOutput)`
    public func placeOutput(_ reference: PlaceReference) -> PlaceOutput {
        guard let place = places?.place(withID: reference.id) else { return PlaceOutput(reference) }
        return PlaceOutput(reference, name: place.name, region: place.admin1Name, country: place.countryName)
    }

    /// The JSON metadata fields of stored metadata, places named; `modified` stands in for a
    /// date the photo does not state.
    ///
    /// Usage: `let fields = reader.fields(try await index.metadata(forPath: path), modified: image.modificationTime)`
    public func fields(_ metadata: IndexedMetadata?, modified: Date?) -> MetadataFields {
        MetadataFields(metadata, modified: modified, place: placeOutput)
    }

    /// The JSON metadata fields of one stored image (see ``fields(_:modified:)``), through the
    /// shared places file only when there is a place to name.
    ///
    /// Usage: `let fields = PhotoMetadataReader.output(stored, modified: image.modificationTime)`
    public static func output(_ metadata: IndexedMetadata?, modified: Date?) -> MetadataFields {
        (metadata?.place == nil ? PhotoMetadataReader(places: nil) : .shared).fields(metadata, modified: modified)
    }

    /// The JSON metadata fields of each hit of a search page, by image id: its stored metadata, its
    /// file time standing in for a date it does not state (failed files have none).
    ///
    /// Usage: `let fields = PhotoMetadataReader.output(for: page.hits, stored: try await index.metadata(forImageIDs: ids))`
    public static func output(for hits: [SearchHit], stored: [Int64: IndexedMetadata]) -> [Int64: MetadataFields] {
        let reader = stored.values.contains { $0.place != nil } ? PhotoMetadataReader.shared : PhotoMetadataReader(places: nil)
        return Dictionary(hits.map { hit in
            (hit.imageID, reader.fields(stored[hit.imageID], modified: hit.failureStage == nil ? hit.modificationTime : nil))
        }, uniquingKeysWith: { first, _ in first })
    }
}
