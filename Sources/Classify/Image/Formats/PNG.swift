import CClassifyCodecs

/// Swift side of the PNG codec: calls libpng's simplified API through the C layer and
/// allocates the pixel buffer only after the header passed the pixel limit. Reduced by 2, 4 or 8
/// (block means, as JPEG's DCT scaling) when the caller needs less; most photos are read row by
/// row, so no full-size buffer is held.
enum PNGDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try decode(bytes, minimumShortSide: request.minimumShortSide, maximumPixelCount: request.maximumPixelCount, region: request.region)
    }

    static func decode(
        _ bytes: UnsafeRawBufferPointer, minimumShortSide: Int? = nil, maximumPixelCount: Int, region: PixelRect? = nil
    ) throws(ImageDecodingError) -> UnorientedImage {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = UInt64(clamping: max(0, maximumPixelCount))
        var decoder: OpaquePointer?
        var header = cls_png_header()
        var message = cls_message()
        let minimum = UInt32(clamping: max(0, minimumShortSide ?? 0))
        let opened = cls_png_decoder_open(base, bytes.count, limit, minimum, &decoder, &header, &message)
        defer { cls_png_decoder_close(decoder) }
        guard opened == CLS_OK, let decoder else {
            throw ImageDecodingError(
                status: opened, message: message, width: header.width, height: header.height,
                limit: maximumPixelCount)
        }
        let orientation = PNGChunkReader.exifPayload(in: bytes).map(ExifOrientationReader.orientation(in:)) ?? .identity
        let uprightCrop = try region.map { region throws(ImageDecodingError) in
            try ImageCrop.cutting(
                region, fullWidth: header.width, fullHeight: header.height, outputWidth: header.output_width,
                outputHeight: header.output_height, orientation: orientation, limit: maximumPixelCount
            ) { stored, message in cls_png_decoder_crop(decoder, stored.outputCrop, &header, &message) }
        }
        let width = Int(header.output_width), height = Int(header.output_height)
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
            pixels: pixels, width: width, height: height, fullWidth: Int(header.width), fullHeight: Int(header.height),
            scaleDenominator: Int(header.scale_denominator), format: .png, orientation: orientation)
        image.metadata = PNGMetadata.read(bytes)
        image.uprightCrop = uprightCrop
        return image
    }
}
