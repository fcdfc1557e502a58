import CClassifyCodecs

/// Swift side of the JPEG codec: calls the C decoder (which owns all setjmp/longjmp handling)
/// and allocates the pixel buffer only after the header passed the pixel limit. DCT-domain
/// scaling to 1/2, 1/4 or 1/8 when the request allows; EXIF orientation from APP1.
enum JPEGDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try decode(bytes, minimumShortSide: request.minimumShortSide, maximumPixelCount: request.maximumPixelCount, region: request.region)
    }

    static func decode(
        _ bytes: UnsafeRawBufferPointer, minimumShortSide: Int?, maximumPixelCount: Int, region: PixelRect? = nil,
        orientation given: ImageOrientation? = nil
    ) throws(ImageDecodingError) -> UnorientedImage {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let minimum = UInt32(clamping: max(0, minimumShortSide ?? 0))
        let limit = UInt64(clamping: max(0, maximumPixelCount))
        var decoder: OpaquePointer?
        var header = cls_jpeg_header()
        var message = cls_message()
        let opened = cls_jpeg_decoder_open(
            base, bytes.count, minimum, limit, &decoder, &header, &message)
        defer { cls_jpeg_decoder_close(decoder) }
        guard opened == CLS_OK, let decoder else {
            throw ImageDecodingError(
                status: opened, message: message, width: header.image_width,
                height: header.image_height, limit: maximumPixelCount)
        }
        // Marker memory is released once decoding starts, so copy the EXIF bytes now.
        let exif = header.exif.map { Array(UnsafeBufferPointer(start: $0, count: header.exif_size)) }
        let metadata = JPEGMetadata.read(exif: exif, header)
        // A raw file's own orientation (`given`) overrides its preview's EXIF.
        let orientation = given ?? exif.map(ExifOrientationReader.orientation(in:)) ?? .identity
        let uprightCrop = try region.map { region throws(ImageDecodingError) in
            try ImageCrop.cutting(
                region, fullWidth: header.image_width, fullHeight: header.image_height, outputWidth: header.output_width,
                outputHeight: header.output_height, orientation: orientation, limit: maximumPixelCount
            ) { stored, message in
                cls_jpeg_decoder_crop(decoder, stored.outputCrop, &header, &message)
            }
        }

        let width = Int(header.output_width), height = Int(header.output_height)
        let byteCount = width * height * 3
        var status = CLS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            status = cls_jpeg_decoder_read_pixels(decoder, buffer.baseAddress, byteCount, &message)
            initialized = status == CLS_OK ? byteCount : 0
        }
        guard status == CLS_OK else {
            throw ImageDecodingError(
                status: status, message: message, width: header.image_width,
                height: header.image_height, limit: maximumPixelCount)
        }
        var image = UnorientedImage(
            pixels: pixels, width: width, height: height, fullWidth: Int(header.image_width),
            fullHeight: Int(header.image_height), scaleDenominator: Int(header.scale_denominator),
            format: .jpeg, orientation: orientation)
        image.metadata = metadata
        image.uprightCrop = uprightCrop
        return image
    }
}
