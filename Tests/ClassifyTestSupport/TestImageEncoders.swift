import Foundation
import CClassifyCodecs
import CClassifyTestEncoders

extension cls_message {
    /// The NUL-terminated text the C layer wrote.
    var messageText: String {
        withUnsafeBytes(of: text) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}

/// Runs one C test encoder and takes its output: the encoder allocates the bytes, which are
/// copied and freed here; a refusal throws with the encoder's message.
private func encodedBytes(
    _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, UnsafeMutablePointer<Int>, UnsafeMutablePointer<cls_message>) -> cls_status
) throws -> [UInt8] {
    var bytes: UnsafeMutablePointer<UInt8>?
    var size = 0
    var message = cls_message()
    guard encode(&bytes, &size, &message) == CLS_OK, let bytes else { throw TestEncodingFailure(description: message.messageText) }
    defer { cls_test_free(bytes) }
    return Array(UnsafeBufferPointer(start: bytes, count: size))
}

/// An encoder in the C test helpers refused the input; carries its message.
public struct TestEncodingFailure: Error, CustomStringConvertible {
    /// What the encoder said.
    public let description: String
}

/// Builds JPEG files for tests with libjpeg (through CClassifyCodecs' test encoders).
///
/// ```swift
/// let jpeg = try TestJPEG.encode(pixels, width: 8, height: 8, quality: 90)
/// ```
public enum TestJPEG {
    /// Compresses interleaved `pixels` of `components` channels (1 gray, 3 RGB, 4 CMYK).
    /// `lumaSampling` (h, v) sets the first component's sampling factors (nil: libjpeg's 2 x 2),
    /// `restartInterval` the MCUs between restart markers (0: none), `optimizedTables` Huffman
    /// tables made for the image.
    public static func encode(
        _ pixels: [UInt8], width: Int, height: Int, components: Int = 3, quality: Int = 95,
        scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE,
        ink: cls_test_jpeg_ink = CLS_TEST_JPEG_INK_ADOBE_CMYK, app1: [UInt8] = [],
        lumaSampling: (h: Int, v: Int)? = nil, restartInterval: Int = 0, optimizedTables: Bool = false
    ) throws -> [UInt8] {
        precondition(pixels.count == width * height * components)
        return try app1.withUnsafeBufferPointer { app1Buffer in
            var options = cls_test_jpeg_options()
            options.width = UInt32(width)
            options.height = UInt32(height)
            options.components = Int32(components)
            options.quality = Int32(quality)
            options.scans = scans
            options.ink = ink
            options.app1 = app1Buffer.baseAddress
            options.app1_size = app1Buffer.count
            options.luma_h_sampling = Int32(lumaSampling?.h ?? 0)
            options.luma_v_sampling = Int32(lumaSampling?.v ?? 0)
            options.restart_interval = UInt32(restartInterval)
            options.optimize_coding = optimizedTables ? 1 : 0
            return try encodedBytes { cls_test_encode_jpeg(&options, pixels, $0, $1, $2) }
        }
    }
}

/// Builds PNG files for tests with libpng's write API.
///
/// ```swift
/// let png = try TestPNG.encode(samples, width: 8, height: 8, color: CLS_TEST_PNG_RGB)
/// ```
public enum TestPNG {
    /// Writes `samples` (channels per pixel from `color`; palette indices for palette images).
    public static func encode(
        _ samples: [UInt16], width: Int, height: Int, color: cls_test_png_color,
        bitDepth: Int = 8, interlaced: Bool = false, palette: [UInt8] = [],
        paletteAlpha: [UInt8] = [], srgbChunk: Bool = false, exif: [UInt8] = []
    ) throws -> [UInt8] {
        try palette.withUnsafeBufferPointer { paletteBuffer in
            try paletteAlpha.withUnsafeBufferPointer { alphaBuffer in
                try exif.withUnsafeBufferPointer { exifBuffer in
                    var options = cls_test_png_options()
                    options.width = UInt32(width)
                    options.height = UInt32(height)
                    options.color = color
                    options.bit_depth = Int32(bitDepth)
                    options.interlaced = interlaced ? 1 : 0
                    options.palette_rgb = paletteBuffer.baseAddress
                    options.palette_count = Int32(palette.count / 3)
                    options.palette_alpha = alphaBuffer.baseAddress
                    options.palette_alpha_count = Int32(paletteAlpha.count)
                    options.srgb_chunk = srgbChunk ? 1 : 0
                    options.exif = exifBuffer.baseAddress
                    options.exif_size = exifBuffer.count
                    return try encodedBytes { cls_test_encode_png(&options, samples, $0, $1, $2) }
                }
            }
        }
    }

    /// Offset of the first chunk of `type` (pointing at its length field), if any.
    public static func chunkOffset(_ type: String, in png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if String(decoding: png[offset + 4..<offset + 8], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }

    /// Recomputes the CRC of the chunk at `offset` after a test edited its data on purpose.
    public static func fixCRC(ofChunkAt offset: Int, in png: inout [UInt8]) {
        let length = Int(png[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let crc = crc32(png[offset + 4..<offset + 8 + length])
        for i in 0..<4 { png[offset + 8 + length + i] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * i)) }
    }

    /// CRC-32 (ISO 3309 polynomial, as PNG uses), bit by bit: slow but obviously right.
    private static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// Writes TIFF files, and large synthetic PNG and TIFF files, for tests with libtiff and libpng
/// (through CClassifyCodecs' test encoders). Large files are written row by row to disk, so a
/// 60-megapixel picture costs the test one band of memory.
///
/// ```swift
/// let tiff = try TestTIFF.encode(pixels, width: 37, height: 23, rowsPerStrip: 5)
/// try TestTIFF.writeLargePNG(to: url, width: 8944, height: 6708)
/// ```
public enum TestTIFF {
    /// RGB `pixels` (stored order) as a deflate TIFF: strips of `rowsPerStrip` rows, or square
    /// tiles of `tileSize` (a multiple of 16) when given, with the Orientation tag `orientation`.
    public static func encode(
        _ pixels: [UInt8], width: Int, height: Int, rowsPerStrip: Int = 8, tileSize: Int? = nil, orientation: Int = 1
    ) throws -> [UInt8] {
        precondition(pixels.count == width * height * 3)
        let scratch = try ScratchFolder("test-tiff")
        let path = scratch.url.appending(path: "image.tif").path
        var message = cls_message()
        guard cls_test_encode_tiff(
            pixels, UInt32(width), UInt32(height), UInt32(rowsPerStrip), UInt32(tileSize ?? 0), UInt16(orientation), path, &message)
            == CLS_OK
        else { throw TestEncodingFailure(description: message.messageText) }
        return try Array(Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// A `width` x `height` 8-bit RGB PNG of gradients and a checker, written to `url` row by row.
    public static func writeLargePNG(to url: URL, width: Int, height: Int) throws {
        var message = cls_message()
        guard cls_test_write_large_png(url.path, UInt32(width), UInt32(height), &message) == CLS_OK else {
            throw TestEncodingFailure(description: message.messageText)
        }
    }

    /// The same picture as a deflate TIFF: strips, or tiles of `tileSize` when given.
    public static func writeLargeTIFF(to url: URL, width: Int, height: Int, tileSize: Int? = nil) throws {
        var message = cls_message()
        guard cls_test_write_large_tiff(url.path, UInt32(width), UInt32(height), UInt32(tileSize ?? 0), &message) == CLS_OK else {
            throw TestEncodingFailure(description: message.messageText)
        }
    }
}
