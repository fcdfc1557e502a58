import CClassifyCodecs

/// WebP through libwebp: lossy, lossless and alpha (composited onto white); lossy ones scaled by
/// libwebp's rescaler while decoding to the smallest power-of-two fraction that keeps the
/// requested short side (as JPEG's DCT scaling does); animated WebP gives its first frame.
/// Orientation comes from the EXIF chunk, as for JPEG.
enum WebPDecoding: FormatDecoder {
    static func decode(_ bytes: UnsafeRawBufferPointer, _ request: DecodingRequest) throws(ImageDecodingError)
        -> UnorientedImage
    {
        let base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let minimum = UInt32(clamping: max(0, request.minimumShortSide ?? 0))
        let limit = request.maximumPixelCount
        var image = try TwoStepDecoding.run(
            format: .webp, limit: limit,
            open: { decoder, info, message in
                cls_webp_decoder_open(
                    base, bytes.count, minimum, UInt64(clamping: max(0, limit)), &decoder, &info, &message)
            },
            read: { cls_webp_decoder_read_pixels($0, $1, $2, &$3) },
            close: { cls_webp_decoder_close($0) })
        image.orientation = RIFFChunkReader.payload(of: "EXIF", in: bytes).map(ExifOrientationReader.orientation(in:))
            ?? .identity
        image.metadata = WebPMetadata.read(bytes)
        return image
    }
}

/// Walks the chunks of a RIFF file (WebP's container) without decoding them.
enum RIFFChunkReader {
    /// The payload of the first chunk named `fourCC`, or nil. Every length is checked against
    /// the data, so a damaged file just yields nil.
    static func payload(of fourCC: String, in bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        let name = Array(fourCC.utf8)
        var offset = 12  // "RIFF", the file size, "WEBP"
        while bytes.count - offset >= 8 {
            let length = Int(bytes[offset + 4]) | Int(bytes[offset + 5]) << 8 | Int(bytes[offset + 6]) << 16
                | Int(bytes[offset + 7]) << 24
            let start = offset + 8
            guard length <= bytes.count - start else { return nil }
            if bytes[offset..<offset + 4].elementsEqual(name) { return Array(bytes[start..<start + length]) }
            offset = start + length + (length & 1)  // chunks are padded to an even length
        }
        return nil
    }
}
