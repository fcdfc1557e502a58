/// Reads the orientation tag from EXIF data through the metadata's one TIFF reader
/// (``TIFFStructure``). Anything malformed (bad byte order, offsets outside the data,
/// unknown values) yields `.identity`, because a wrong-but-upright guess is better than
/// refusing a photo over its metadata.
enum ExifOrientationReader {
    /// The orientation stored in IFD0 of `exif`: TIFF-structured bytes, optionally still
    /// preceded by the "Exif\0\0" APP1 prefix (some PNG writers keep it in eXIf).
    static func orientation(in exif: [UInt8]) -> ImageOrientation {
        exif.withUnsafeBytes { ExifReader.orientation(inBlock: $0) }.flatMap(ImageOrientation.init(rawValue:)) ?? .identity
    }
}
