import CClassifyCodecs
import Foundation

/// HEIF (HEIC, the iPhone's format since 2017) and AVIF through libheif: the primary image
/// with its transformations (irot, imir, clap) applied by libheif, grids assembled, 10/12-bit
/// samples reduced to 8, alpha composited onto white; reduced by 2, 4 or 8 (block means) when
/// the caller needs less, straight from libheif's picture without a full-size copy. The file's brand says which decoder
/// (HEVC or AV1) is needed; a libheif built without it is a clear per-file error.
enum HEIFDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try decode(bytes, request, coding: CLS_HEIF_HEVC, format: .heif)
    }

    /// Whether this libheif can decode HEIC (HEVC) images.
    static var hasDecoder: Bool { cls_heif_has_decoder(CLS_HEIF_HEVC) != 0 }

    /// What a whole-picture decode holds per pixel, measured on 12-MP photos (docs/performance.md,
    /// "Memory of index on a mixed library"): libde265 about 5.2 bytes, dav1d about 4.6 (on one
    /// thread: see cls_heif_decoder_read_pixels).
    static func bytesPerPixel(_ coding: cls_heif_coding) -> Int { coding == CLS_HEIF_AV1 ? 5 : 6 }

    static func decode(
        _ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest, coding: cls_heif_coding, format: ImageFormat
    ) throws(ImageDecodingError) -> UnorientedImage {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = request.maximumPixelCount
        let minimum = UInt32(clamping: max(0, request.minimumShortSide ?? 0))
        var metadata = PhotoMetadata()
        var wholePicture = 0
        var image = try TwoStepDecoding.run(
            format: format, limit: limit,
            open: { decoder, info, message in
                // The embedded thumbnail is not used: see docs/formats.md, "Accuracy by format" (measured).
                let status = cls_heif_decoder_open(
                    base, bytes.count, coding, UInt64(clamping: max(0, limit)), 0, minimum, &decoder, &info, &message)
                wholePicture = Int(info.width) * Int(info.height)
                return status
            },
            inspect: { metadata = HEIFMetadata.read($0) },
            region: request.region,
            crop: { cls_heif_decoder_crop($0, $1, &$2, &$3) },
            read: { decoder, rgb, capacity, message in
                // libheif decodes the whole picture, whatever size was asked for: see DecodeMemoryBudget.
                // Large pictures wait for each other here; libheif may decode a grid's tiles on the cores.
                DecodeMemoryBudget.shared.reserving(bytes: wholePicture * Self.bytesPerPixel(coding)) {
                    cls_heif_decoder_set_threads(decoder, Int32(min(4, ProcessInfo.processInfo.activeProcessorCount)))
                    return cls_heif_decoder_read_pixels(decoder, rgb, capacity, &message)
                }
            },
            close: { cls_heif_decoder_close($0) })
        image.metadata = metadata
        return image
    }
}

/// AVIF (AV1 in HEIF) through libheif's AV1 decoder (dav1d or libaom); see ``HEIFDecoding``.
enum AVIFDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try HEIFDecoding.decode(bytes, request, coding: CLS_HEIF_AV1, format: .avif)
    }

    /// Whether this libheif can decode AVIF (AV1) images.
    static var hasDecoder: Bool { cls_heif_has_decoder(CLS_HEIF_AV1) != 0 }
}
