import CClassifyCodecs
import Testing

@testable import Classify

/// An encoder in the C test helpers refused the input; carries its message.
struct TestEncodingFailure: Error, CustomStringConvertible {
    let description: String
}

/// Builds JPEG files for tests with libjpeg (through CClassifyCodecs' test encoders).
enum TestJPEG {
    /// Compresses interleaved `pixels` of `components` channels (1 gray, 3 RGB, 4 CMYK).
    static func encode(
        _ pixels: [UInt8], width: Int, height: Int, components: Int = 3, quality: Int = 95,
        scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE,
        ink: cls_test_jpeg_ink = CLS_TEST_JPEG_INK_ADOBE_CMYK, app1: [UInt8] = []
    ) throws -> [UInt8] {
        precondition(pixels.count == width * height * components)
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = cls_message()
        let status = app1.withUnsafeBufferPointer { app1Buffer in
            var options = cls_test_jpeg_options()
            options.width = UInt32(width)
            options.height = UInt32(height)
            options.components = Int32(components)
            options.quality = Int32(quality)
            options.scans = scans
            options.ink = ink
            options.app1 = app1Buffer.baseAddress
            options.app1_size = app1Buffer.count
            return cls_test_encode_jpeg(&options, pixels, &bytes, &size, &message)
        }
        guard status == CLS_OK, let bytes else { throw TestEncodingFailure(description: message.string) }
        defer { cls_test_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }
}

/// Builds PNG files for tests with libpng's write API.
enum TestPNG {
    /// Writes `samples` (channels per pixel from `color`; palette indices for palette images).
    static func encode(
        _ samples: [UInt16], width: Int, height: Int, color: cls_test_png_color,
        bitDepth: Int = 8, interlaced: Bool = false, palette: [UInt8] = [],
        paletteAlpha: [UInt8] = [], srgbChunk: Bool = false, exif: [UInt8] = []
    ) throws -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = cls_message()
        let status = palette.withUnsafeBufferPointer { paletteBuffer in
            paletteAlpha.withUnsafeBufferPointer { alphaBuffer in
                exif.withUnsafeBufferPointer { exifBuffer in
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
                    return cls_test_encode_png(&options, samples, &bytes, &size, &message)
                }
            }
        }
        guard status == CLS_OK, let bytes else { throw TestEncodingFailure(description: message.string) }
        defer { cls_test_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: size))
    }

    /// Offset of the first chunk of `type` (pointing at its length field), if any.
    static func chunkOffset(_ type: String, in png: [UInt8]) -> Int? {
        var offset = 8
        while offset + 8 <= png.count {
            let length = Int(png[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            if String(decoding: png[offset + 4..<offset + 8], as: UTF8.self) == type { return offset }
            offset += 12 + length
        }
        return nil
    }

    /// Recomputes the CRC of the chunk at `offset` after a test edited its data on purpose.
    static func fixCRC(ofChunkAt offset: Int, in png: inout [UInt8]) {
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

/// Synthetic pictures and pixel accessors shared by the image tests.
enum TestPictures {
    typealias RGB = [UInt8]

    /// A width x height image whose four quadrants have the given colours (any channel count).
    static func quadrants(width: Int, height: Int, topLeft: [UInt8], topRight: [UInt8], bottomLeft: [UInt8], bottomRight: [UInt8]) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * topLeft.count)
        for y in 0..<height {
            for x in 0..<width {
                let top = y < height / 2, left = x < width / 2
                pixels += top ? (left ? topLeft : topRight) : (left ? bottomLeft : bottomRight)
            }
        }
        return pixels
    }

    /// Deterministic pseudo-random bytes (SplitMix64), so failures reproduce.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return UInt8(truncatingIfNeeded: z ^ (z >> 31))
        }
    }

    static func pixel(_ image: DecodedImage, x: Int, y: Int) -> RGB {
        let offset = (y * image.width + x) * 3
        return Array(image.pixels[offset..<offset + 3])
    }

    /// True when every channel is within `tolerance` of `expected`.
    static func isClose(_ actual: RGB, _ expected: RGB, tolerance: Int) -> Bool {
        zip(actual, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    /// A minimal EXIF TIFF structure holding only IFD0 with the orientation tag.
    static func exif(orientation: UInt16, bigEndian: Bool) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        func u32(_ value: UInt32) -> [UInt8] {
            let high = u16(UInt16(value >> 16)), low = u16(UInt16(value & 0xFFFF))
            return bigEndian ? high + low : low + high
        }
        let byteOrder: [UInt8] = bigEndian ? Array("MM".utf8) : Array("II".utf8)
        return byteOrder + u16(42) + u32(8)  // header, IFD0 right after it
            + u16(1)  // one entry
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)  // SHORT, inline value
            + u32(0)  // no next IFD
    }

    /// The JPEG APP1 payload carrying `tiff`.
    static func jpegAPP1(_ tiff: [UInt8]) -> [UInt8] {
        Array("Exif".utf8) + [0, 0] + tiff
    }
}

/// Runs `body` and returns the decoding error it threw, or nil if it succeeded.
/// (Closures do not infer typed throws yet, so this takes an untyped one and checks the type.)
func decodingError(_ body: () throws -> DecodedImage) -> ImageDecodingError? {
    do {
        _ = try body()
        return nil
    } catch let error as ImageDecodingError {
        return error
    } catch {
        Issue.record("expected an ImageDecodingError, got \(error)")
        return nil
    }
}
