import CClassifyCodecs
import CClassifyTestEncoders
import Classify
import ClassifyTestSupport
import Foundation
import Testing

/// Builds the images of the hostile folder: re-encodings of a real photo (progressive, CMYK,
/// YCCK, 16-bit, gray, palette, interlaced, every EXIF orientation) and damaged files, with
/// libjpeg and libpng through CClassifyCodecs' test encoders.
///
/// Usage: `let cat = try ReliabilityImages.cat(); let png = try ReliabilityImages.png(cat)`
enum ReliabilityImages {
    /// Interleaved 8-bit RGB pixels.
    struct Picture: Equatable {
        var pixels: [UInt8]
        var width: Int
        var height: Int

        func pixel(_ x: Int, _ y: Int) -> ArraySlice<UInt8> {
            let offset = (y * width + x) * 3
            return pixels[offset..<offset + 3]
        }
    }

    /// The cat photo (385x256), decoded.
    static func cat() throws -> Picture {
        let image = try ImageDecoder().decode(contentsOf: ReliabilityFixtures.photos.appending(path: "cat-chelsea.jpg"))
        return Picture(pixels: image.pixels, width: image.width, height: image.height)
    }

    /// Decodes in-memory bytes at full size, orientation applied.
    static func decode(_ bytes: [UInt8]) throws -> Picture {
        let image = try ImageDecoder().decode(bytes)
        return Picture(pixels: image.pixels, width: image.width, height: image.height)
    }

    // MARK: Encoders

    static func jpeg(
        _ samples: [UInt8], width: Int, height: Int, components: Int = 3, quality: Int = 95,
        scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE, ink: cls_test_jpeg_ink = CLS_TEST_JPEG_INK_ADOBE_CMYK,
        app1: [UInt8] = []
    ) throws -> [UInt8] {
        try TestJPEG.encode(samples, width: width, height: height, components: components, quality: quality, scans: scans, ink: ink, app1: app1)
    }

    static func jpeg(_ picture: Picture, quality: Int = 95, scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE, app1: [UInt8] = []) throws -> [UInt8] {
        try jpeg(picture.pixels, width: picture.width, height: picture.height, quality: quality, scans: scans, app1: app1)
    }

    static func png(
        _ samples: [UInt16], width: Int, height: Int, color: cls_test_png_color, bitDepth: Int = 8,
        interlaced: Bool = false, palette: [UInt8] = [], paletteAlpha: [UInt8] = [], exif: [UInt8] = []
    ) throws -> [UInt8] {
        try TestPNG.encode(
            samples, width: width, height: height, color: color, bitDepth: bitDepth, interlaced: interlaced,
            palette: palette, paletteAlpha: paletteAlpha, exif: exif)
    }

    static func png(_ picture: Picture, interlaced: Bool = false, exif: [UInt8] = []) throws -> [UInt8] {
        try png(picture.pixels.map(UInt16.init), width: picture.width, height: picture.height, color: CLS_TEST_PNG_RGB, interlaced: interlaced, exif: exif)
    }

    // MARK: Variants of a picture

    /// CMYK ink amounts stored inverted, as Adobe applications write them (255 = no ink).
    static func invertedInk(_ picture: Picture) -> [UInt8] {
        var ink: [UInt8] = []
        ink.reserveCapacity(picture.width * picture.height * 4)
        for index in stride(from: 0, to: picture.pixels.count, by: 3) {
            // Ink c = 255 - r (and so on) with no black, stored inverted: r, g, b, 255.
            ink += [picture.pixels[index], picture.pixels[index + 1], picture.pixels[index + 2], 255]
        }
        return ink
    }

    static func gray(_ picture: Picture) -> [UInt16] {
        stride(from: 0, to: picture.pixels.count, by: 3).map { index in
            let r = Int(picture.pixels[index]), g = Int(picture.pixels[index + 1]), b = Int(picture.pixels[index + 2])
            return UInt16((299 * r + 587 * g + 114 * b + 500) / 1000)
        }
    }

    /// A 6x6x6 colour cube palette, the picture's indices, and a tRNS table making the darkest
    /// entries half transparent.
    static func paletted(_ picture: Picture) -> (indices: [UInt16], palette: [UInt8], alpha: [UInt8]) {
        var palette: [UInt8] = []
        for r in 0..<6 { for g in 0..<6 { for b in 0..<6 { palette += [UInt8(r * 51), UInt8(g * 51), UInt8(b * 51)] } } }
        let level = { (value: UInt8) in (Int(value) + 25) / 51 }
        let indices = stride(from: 0, to: picture.pixels.count, by: 3).map { index in
            UInt16(level(picture.pixels[index]) * 36 + level(picture.pixels[index + 1]) * 6 + level(picture.pixels[index + 2]))
        }
        let alpha = (0..<216).map { $0 < 8 ? UInt8(128) : UInt8(255) }
        return (indices, palette, alpha)
    }

    // MARK: EXIF orientation, from the EXIF 2.3 definitions (independent of the decoder's code)

    /// Where stored pixel (x, y) of an image saved with `orientation` appears in the upright
    /// image of `width` x `height` (the stored image is `height` x `width` for 5...8).
    /// The tag names where the stored 0th row and 0th column are: 1 top/left, 2 top/right,
    /// 3 bottom/right, 4 bottom/left, 5 left/top, 6 right/top, 7 right/bottom, 8 left/bottom.
    static func uprightPosition(ofStored x: Int, _ y: Int, orientation: Int, width: Int, height: Int) -> (Int, Int) {
        switch orientation {
        case 2: (width - 1 - x, y)
        case 3: (width - 1 - x, height - 1 - y)
        case 4: (x, height - 1 - y)
        case 5: (y, x)
        case 6: (width - 1 - y, x)
        case 7: (width - 1 - y, height - 1 - x)
        case 8: (y, height - 1 - x)
        default: (x, y)
        }
    }

    /// The stored picture that a viewer honouring `orientation` shows as `upright`.
    static func stored(_ upright: Picture, orientation: Int) -> Picture {
        let swaps = orientation >= 5
        let width = swaps ? upright.height : upright.width, height = swaps ? upright.width : upright.height
        var pixels = [UInt8](repeating: 0, count: upright.pixels.count)
        for y in 0..<height {
            for x in 0..<width {
                let (ux, uy) = uprightPosition(ofStored: x, y, orientation: orientation, width: upright.width, height: upright.height)
                let source = (uy * upright.width + ux) * 3, target = (y * width + x) * 3
                pixels[target..<target + 3] = upright.pixels[source..<source + 3]
            }
        }
        return Picture(pixels: pixels, width: width, height: height)
    }

    /// The upright picture a viewer shows for `stored` saved with `orientation`.
    static func upright(_ stored: Picture, orientation: Int) -> Picture {
        let swaps = orientation >= 5
        let width = swaps ? stored.height : stored.width, height = swaps ? stored.width : stored.height
        var pixels = [UInt8](repeating: 0, count: stored.pixels.count)
        for y in 0..<stored.height {
            for x in 0..<stored.width {
                let (ux, uy) = uprightPosition(ofStored: x, y, orientation: orientation, width: width, height: height)
                let source = (y * stored.width + x) * 3, target = (uy * width + ux) * 3
                pixels[target..<target + 3] = stored.pixels[source..<source + 3]
            }
        }
        return Picture(pixels: pixels, width: width, height: height)
    }

    /// A TIFF structure whose IFD0 holds `entries` (tag, type, count, inline value) after the
    /// header, with `ifdOffset` and `nextIFD` as given (little-endian "II").
    static func tiff(entries: [(UInt16, UInt16, UInt32, UInt32)], ifdOffset: UInt32 = 8, entryCount: UInt16? = nil, nextIFD: UInt32 = 0) -> [UInt8] {
        func u16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
        func u32(_ value: UInt32) -> [UInt8] { u16(UInt16(value & 0xFFFF)) + u16(UInt16(value >> 16)) }
        var bytes: [UInt8] = Array("II".utf8) + u16(42) + u32(ifdOffset)
        bytes += u16(entryCount ?? UInt16(entries.count))
        for (tag, type, count, value) in entries { bytes += u16(tag) + u16(type) + u32(count) + u32(value) }
        bytes += u32(nextIFD)
        return bytes
    }

    /// IFD0 with only the orientation tag (SHORT, inline).
    static func exif(orientation: UInt16) -> [UInt8] {
        tiff(entries: [(0x0112, 3, 1, UInt32(orientation))])
    }

    /// The JPEG APP1 payload for `tiff`.
    static func app1(_ tiff: [UInt8]) -> [UInt8] { Array("Exif".utf8) + [0, 0] + tiff }

    // MARK: Damage

    /// Offset of the first marker `code` (its 0xFF byte).
    static func markerOffset(_ code: UInt8, in jpeg: [UInt8]) -> Int? {
        (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == code }
    }

    /// First byte of entropy-coded data after the first SOS segment.
    static func scanDataStart(in jpeg: [UInt8]) -> Int {
        let sos = markerOffset(0xDA, in: jpeg)!
        return sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
    }

    /// Deterministic pseudo-random bytes (SplitMix64).
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }
}
