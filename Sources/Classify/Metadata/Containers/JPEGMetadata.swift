import CClassifyCodecs

/// JPEG: EXIF and XMP travel in APP1 segments, which the C decoder already kept while reading
/// the header (`find_metadata` in jpeg_decoder.c), so nothing is read twice.
enum JPEGMetadata {
    /// The metadata of the APP1 segments `header` points at; call before the pixels are read,
    /// while the decoder still owns the marker memory.
    static func read(_ header: cls_jpeg_header) -> PhotoMetadata {
        let exif = header.exif.map { Array(UnsafeBufferPointer(start: $0, count: header.exif_size)) }
        let xmp = header.xmp.map { Array(UnsafeBufferPointer(start: $0, count: header.xmp_size)) }
        return PhotoMetadata(exif: exif, xmp: xmp)
    }
}
