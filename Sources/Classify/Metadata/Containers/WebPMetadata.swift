/// WebP: EXIF in the `EXIF` chunk and XMP in the `XMP ` chunk of the extended (VP8X) format;
/// see ``RIFFChunkReader``.
enum WebPMetadata {
    static func read(_ bytes: UnsafeRawBufferPointer) -> PhotoMetadata {
        PhotoMetadata(
            exif: RIFFChunkReader.payload(of: "EXIF", in: bytes), xmp: RIFFChunkReader.payload(of: "XMP ", in: bytes))
    }
}
