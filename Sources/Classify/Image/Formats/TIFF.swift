import CClassifyCodecs

/// TIFF through libtiff's RGBA interface: strips and tiles, 1 to 16 bits per sample, gray,
/// RGB, RGBA, CMYK, palette and YCbCr, with every compression this libtiff has; the first
/// page of a multi-page file; the Orientation tag applied like EXIF orientation. Read a band of
/// strips or tiles at a time and, when the caller needs less, reduced by 2, 4 or 8 as the rows
/// arrive (block means, as JPEG's DCT scaling), so no full-size buffer is held.
enum TIFFDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = request.maximumPixelCount
        let minimum = UInt32(clamping: max(0, request.minimumShortSide ?? 0))
        var image = try TwoStepDecoding.run(
            format: .tiff, limit: limit,
            open: { decoder, info, message in
                cls_tiff_decoder_open(
                    base, bytes.count, UInt64(clamping: max(0, limit)), minimum, &decoder, &info, &message)
            },
            region: request.region,
            crop: { cls_tiff_decoder_crop($0, $1, &$2, &$3) },
            read: { cls_tiff_decoder_read_pixels($0, $1, $2, &$3) },
            close: { cls_tiff_decoder_close($0) })
        image.metadata = TIFFMetadata.read(bytes)
        return image
    }
}
