/// PNG: EXIF in the eXIf chunk (PNG 1.2 extension, PNG third edition), XMP in an iTXt chunk
/// with keyword "XML:com.adobe.xmp"; see ``PNGChunkReader``.
enum PNGMetadata {
    static func read(_ bytes: UnsafeRawBufferPointer) -> PhotoMetadata {
        PhotoMetadata(exif: PNGChunkReader.exifPayload(in: bytes), xmp: PNGChunkReader.xmpPacket(in: bytes))
    }
}
