import CClassifyCodecs

/// JPEG: EXIF and XMP travel in APP1 segments, which the C decoder already kept while reading
/// the header (`find_metadata` in jpeg_decoder.c), so nothing is read twice.
enum JPEGMetadata {
    /// The metadata of the EXIF block already copied from `header` (the decoder reads the
    /// orientation from the same copy) and of the XMP segment it points at; call before the
    /// pixels are read, while the decoder still owns the marker memory.
    static func read(exif: [UInt8]?, _ header: cls_jpeg_header) -> PhotoMetadata {
        let xmp = header.xmp.map { Array(UnsafeBufferPointer(start: $0, count: header.xmp_size)) }
        return PhotoMetadata(exif: exif, xmp: xmp)
    }
}
