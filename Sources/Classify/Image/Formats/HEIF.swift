import CClassifyCodecs
import Foundation

/// HEIF (HEIC, the iPhone's format since 2017) and AVIF through libheif: the primary image
/// with its transformations (irot, imir, clap) applied, grids assembled, 10/12-bit samples
/// reduced to 8, alpha composited onto white; reduced by 2, 4 or 8 (block means) when the caller
/// needs less, straight from libheif's picture without a full-size copy. A grid (every iPhone
/// photo, and any HEIC or AVIF over 35.6 MP) is decoded one tile at a time, so its memory does not
/// grow with the picture (`heif_tiled_grid.h`). The file's brand says which decoder (HEVC or AV1)
/// is needed; a libheif built without it is a clear per-file error.
enum HEIFDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        try decode(bytes, request, coding: CLS_HEIF_HEVC, format: .heif)
    }

    /// Whether this libheif can decode HEIC (HEVC) images.
    static var hasDecoder: Bool { cls_heif_has_decoder(CLS_HEIF_HEVC) != 0 }

    /// What a decode holds per pixel it holds at once (`cls_heif_decoder_pixels_held`), measured on
    /// 12-MP photos (docs/performance.md, "Memory of index on a mixed library"): libde265 about 5.2
    /// bytes, dav1d about 4.6 (on one thread: see heif_rgb_decode).
    static func bytesPerPixel(_ coding: cls_heif_coding) -> Int { coding == CLS_HEIF_AV1 ? 5 : 6 }

    /// `grids`: tile by tile, or `CLS_HEIF_GRIDS_WHOLE` through libheif (the reference tests compare with).
    static func decode(
        _ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest, coding: cls_heif_coding, format: ImageFormat,
        grids: cls_heif_grids = CLS_HEIF_GRIDS_TILE_BY_TILE
    ) throws(ImageDecodingError) -> UnorientedImage {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = request.maximumPixelCount
        let minimum = UInt32(clamping: max(0, request.minimumShortSide ?? 0))
        var metadata = PhotoMetadata()
        var pixelsHeld = 0
        var image = try TwoStepDecoding.run(
            format: format, limit: limit,
            open: { decoder, info, message in
                // The embedded thumbnail is not used: see docs/formats.md, "Accuracy by format" (measured).
                let status = cls_heif_decoder_open(
                    base, bytes.count, coding, UInt64(clamping: max(0, limit)), 0, minimum, grids, &decoder, &info,
                    &message)
                // Tiles (of a grid decoded whole by libheif, or tile by tile) on up to four threads.
                cls_heif_decoder_set_threads(decoder, Int32(min(4, ProcessInfo.processInfo.activeProcessorCount)))
                pixelsHeld = Int(clamping: cls_heif_decoder_pixels_held(decoder))
                return status
            },
            inspect: { metadata = HEIFMetadata.read($0) },
            region: request.region,
            crop: { cls_heif_decoder_crop($0, $1, &$2, &$3) },
            read: { decoder, rgb, capacity, message in
                // libheif decodes a whole picture (or a grid's tile), whatever size was asked for: see
                // DecodeMemoryBudget. Large pictures wait for each other here.
                DecodeMemoryBudget.shared.reserving(bytes: pixelsHeld * Self.bytesPerPixel(coding)) {
                    cls_heif_decoder_read_pixels(decoder, rgb, capacity, &message)
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
