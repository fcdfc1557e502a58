import CClassifyCodecs

/// HEIF and AVIF: EXIF is an `Exif` item and XMP a `mime` item (application/rdf+xml) linked
/// to the primary image; libheif, which parsed the file for the decoder, hands them over.
enum HEIFMetadata {
    /// Blocks larger than this are damage (an EXIF block is at most a few hundred KB with
    /// thumbnails and maker notes).
    static let maximumBlockByteCount = 16 * 1024 * 1024

    /// The metadata of the open decoder's primary image.
    static func read(_ decoder: OpaquePointer) -> PhotoMetadata {
        let exif = block(decoder, CLS_HEIF_METADATA_EXIF).flatMap(tiffBytes)
        return PhotoMetadata(exif: exif, xmp: block(decoder, CLS_HEIF_METADATA_XMP))
    }

    /// The `Exif` item starts with a 4-byte big-endian offset from its end to the TIFF header
    /// (ISO/IEC 23008-12 Annex A.2.1; usually 6, skipping "Exif\0\0", or 0).
    static func tiffBytes(_ item: [UInt8]) -> [UInt8]? {
        guard item.count >= 4 else { return nil }
        let offset = item[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard offset <= item.count - 4 else { return nil }
        return Array(item[(4 + offset)...])
    }

    private static func block(_ decoder: OpaquePointer, _ kind: cls_heif_metadata) -> [UInt8]? {
        let size = cls_heif_decoder_metadata_size(decoder, kind)
        guard size > 0, size <= maximumBlockByteCount else { return nil }
        var message = cls_message()
        var status = CLS_OK
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            status = cls_heif_decoder_copy_metadata(decoder, kind, buffer.baseAddress, size, &message)
            initialized = status == CLS_OK ? size : 0
        }
        return status == CLS_OK ? bytes : nil
    }
}
