import CClassifyCodecs

/// What ``ImageDecoder`` asks of a format's decoder.
struct DecodingRequest: Sendable {
    /// The shorter side the caller needs at least; codecs that can scale while decoding
    /// (JPEG's DCT scaling, libwebp's rescaler, the row reduction of PNG, TIFF and HEIF) stop at
    /// the smallest power-of-two fraction that keeps it. nil: full size.
    var minimumShortSide: Int?
    /// Images with more full-size pixels than this fail with `.tooLarge` before any pixel
    /// memory is allocated.
    var maximumPixelCount: Int
    /// Only this part is needed (pixels of the upright full-size photo). A codec that can cut
    /// while decoding (JPEG) decodes just it and says where it lies (`uprightCrop`); the others
    /// decode whole and ``ImageDecoder`` cuts.
    var region: PixelRect? = nil
}

/// One file format: a file in `Image/Formats/` whose decoder turns the format's bytes into
/// stored-order RGB pixels plus the orientation still to apply. ``ImageFormat/decoder`` maps
/// each format to its decoder, so adding a format is one file here, one C file in
/// CClassifyCodecs, and one case in ``ImageFormat`` with its signature.
protocol FormatDecoder {
    /// Decodes `bytes`, whose signature said they are this format.
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
}

/// The two-step C decoders of the newer formats share one shape: open (header, size check,
/// `cls_image_info`), then read the pixels into a buffer Swift allocates, then close.
enum TwoStepDecoding {
    /// Opens with `open`, lets `inspect` read what else the open decoder knows (HEIF's metadata
    /// items), has `crop` cut the output to what covers `region` when one is asked for, allocates `output_width * output_height * 3` bytes only after the
    /// header passed the pixel limit, fills them with `read`, and always calls `close`.
    static func run(
        format: ImageFormat, limit: Int,
        open: (inout OpaquePointer?, inout cls_image_info, inout cls_message) -> cls_status,
        inspect: (OpaquePointer) -> Void = { _ in },
        region: PixelRect? = nil,
        crop: ((OpaquePointer, cls_output_crop, inout cls_image_info, inout cls_message) -> cls_status)? = nil,
        read: (OpaquePointer, UnsafeMutablePointer<UInt8>?, Int, inout cls_message) -> cls_status,
        close: (OpaquePointer?) -> Void
    ) throws(ImageDecodingError) -> UnorientedImage {
        var decoder: OpaquePointer?
        var info = cls_image_info()
        var message = cls_message()
        let opened = open(&decoder, &info, &message)
        defer { close(decoder) }
        guard opened == CLS_OK, let decoder else {
            throw ImageDecodingError(status: opened, message: message, width: info.width, height: info.height, limit: limit)
        }
        inspect(decoder)
        // Codecs round reduced sides up (ceil(width / 2^k)), so the ratio is rounded, not truncated.
        let denominator = max(1, Int((Double(info.width) / Double(max(1, info.output_width))).rounded()))
        let orientation = ImageOrientation(rawValue: Int(info.orientation)) ?? .identity
        var uprightCrop: ImageCrop?
        if let region, let crop {
            uprightCrop = try ImageCrop.cutting(
                region, fullWidth: info.width, fullHeight: info.height, outputWidth: info.output_width,
                outputHeight: info.output_height, orientation: orientation, limit: limit
            ) { stored, message in crop(decoder, stored.outputCrop, &info, &message) }
        }
        let width = Int(info.output_width), height = Int(info.output_height)
        let byteCount = width * height * 3
        var status = CLS_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            status = read(decoder, buffer.baseAddress, byteCount, &message)
            initialized = status == CLS_OK ? byteCount : 0
        }
        guard status == CLS_OK else {
            throw ImageDecodingError(status: status, message: message, width: info.width, height: info.height, limit: limit)
        }
        var image = UnorientedImage(
            pixels: pixels, width: width, height: height, fullWidth: Int(info.width), fullHeight: Int(info.height),
            scaleDenominator: denominator, format: format, orientation: orientation)
        image.uprightCrop = uprightCrop
        return image
    }
}
