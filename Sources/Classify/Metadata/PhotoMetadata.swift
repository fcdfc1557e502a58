/// When, where and with what a photo was taken, read from the same bytes the decoder read
/// (EXIF from JPEG, HEIF/AVIF, PNG, WebP, TIFF and TIFF-based raw files; an embedded XMP
/// packet fills what EXIF lacks). Anything missing or malformed is nil.
///
/// Usage:
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url)
/// let taken = image.metadata.dateTaken?.iso8601, location = image.metadata.location
/// ```
public struct PhotoMetadata: Sendable, Hashable {
    /// When the photo was taken (local wall time, offset when known). Usage: `metadata.dateTaken?.year`
    public var dateTaken: DateTaken?
    /// Where it was taken. Usage: `metadata.location?.latitude`
    public var location: GPSCoordinate?
    /// The camera and lens. Usage: `metadata.camera?.model`
    public var camera: CameraInfo?
    /// Faces another photo tool marked in XMP (MWG regions), with the names it gave them.
    /// Usage: `metadata.faceRegions.compactMap(\.name)`
    public var faceRegions: [FaceRegion] = []

    /// Bundles the three facts; all nil by default (nothing known).
    /// Usage: `PhotoMetadata(dateTaken: taken, location: nil, camera: nil)`
    public init(dateTaken: DateTaken? = nil, location: GPSCoordinate? = nil, camera: CameraInfo? = nil) {
        self.dateTaken = dateTaken
        self.location = location
        self.camera = camera
    }

    /// Whether nothing is known. Usage: `if image.metadata.isEmpty { ... }`
    public var isEmpty: Bool { dateTaken == nil && location == nil && camera == nil && faceRegions.isEmpty }

    /// Each fact of `self` where known, else `other`'s (camera names one by one; the face
    /// regions of `self` when it has any).
    /// Usage: `let merged = embedded.filling(from: fromXMP)`
    public func filling(from other: PhotoMetadata) -> PhotoMetadata {
        var merged = PhotoMetadata(
            dateTaken: dateTaken ?? other.dateTaken, location: location ?? other.location,
            camera: camera.map { $0.filled(from: other.camera) } ?? other.camera)
        merged.faceRegions = faceRegions.isEmpty ? other.faceRegions : faceRegions
        return merged
    }

    /// Metadata from an EXIF block (TIFF-structured, optionally after "Exif\0\0") and an XMP
    /// packet, either of which may be missing; EXIF wins where both know a fact.
    ///
    /// Usage: `let metadata = PhotoMetadata(exif: exifBytes, xmp: nil)`
    public init(exif: [UInt8]?, xmp: [UInt8]?) {
        let fromExif = exif.map { block in block.withUnsafeBytes { ExifReader.metadata(inBlock: $0) } } ?? PhotoMetadata()
        let fromXMP = xmp.map { XMPReader.metadata(inPacket: $0) } ?? PhotoMetadata()
        self = fromExif.filling(from: fromXMP)
    }
}
