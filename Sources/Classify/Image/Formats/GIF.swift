import CClassifyCodecs

/// GIF through giflib: the first frame on the logical screen, transparent pixels white.
enum GIFDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let limit = request.maximumPixelCount
        return try TwoStepDecoding.run(
            format: .gif, limit: limit,
            open: { decoder, info, message in
                cls_gif_decoder_open(base, bytes.count, UInt64(clamping: max(0, limit)), &decoder, &info, &message)
            },
            read: { cls_gif_decoder_read_pixels($0, $1, $2, &$3) },
            close: { cls_gif_decoder_close($0) })
    }
}
