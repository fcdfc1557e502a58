import CClassifyCodecs

/// Swift side of the PNG codec: calls libpng's simplified API through the C layer and
/// allocates the pixel buffer only after the header passed the pixel limit.
enum PNGDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try decode(bytes, maximumPixelCount: request.maximumPixelCount)
    }

    static func decode(
        _ bytes: UnsafeRawBufferPointer, maximumPixelCount: Int
    ) throws(ImageDecodingError) -> UnorientedImage {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = UInt64(clamping: max(0, maximumPixelCount))
        var decoder: OpaquePointer?
        var header = cls_png_header()
        var message = cls_message()
        let opened = cls_png_decoder_open(base, bytes.count, limit, &decoder, &header, &message)
        defer { cls_png_decoder_close(decoder) }
        guard opened == CLS_OK, let decoder else {
            throw ImageDecodingError(
                status: opened, message: message, width: header.width, height: header.height,
                limit: maximumPixelCount)
        }
        let width = Int(header.width), height = Int(header.height)
        let byteCount = width * height * 3
        var status = CLS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            status = cls_png_decoder_read_pixels(decoder, buffer.baseAddress, byteCount, &message)
            initialized = status == CLS_OK ? byteCount : 0
        }
        guard status == CLS_OK else {
            throw ImageDecodingError(
                status: status, message: message, width: header.width, height: header.height,
                limit: maximumPixelCount)
        }
        var image = UnorientedImage(
            pixels: pixels, width: width, height: height, fullWidth: width, fullHeight: height,
            scaleDenominator: 1, format: .png,
            orientation: PNGChunkReader.exifPayload(in: bytes).map(ExifOrientationReader.orientation(in:)) ?? .identity)
        image.metadata = PNGMetadata.read(bytes)
        return image
    }
}
