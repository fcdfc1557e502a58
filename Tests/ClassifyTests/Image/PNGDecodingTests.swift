import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Testing

@testable import Classify

@Suite("PNG decoding")
struct PNGDecodingTests {
    let decoder = ImageDecoder()

    /// PNG is lossless, so every test compares exact pixel values.
    static func rgbRows(_ image: DecodedImage) -> [[UInt8]] {
        stride(from: 0, to: image.pixels.count, by: 3).map { Array(image.pixels[$0..<$0 + 3]) }
    }

    @Test(arguments: [false, true])
    func rgb8(interlaced: Bool) throws {
        let samples: [UInt16] = [255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30]
        let png = try TestPNG.encode(samples, width: 2, height: 2, color: CLS_TEST_PNG_RGB, interlaced: interlaced)
        let image = try decoder.decode(png)
        #expect((image.width, image.height, image.format, image.decodeScale) == (2, 2, .png, 1))
        #expect(image.pixels == samples.map(UInt8.init))
    }

    @Test func gray8BecomesEqualRGB() throws {
        let png = try TestPNG.encode([0, 77, 200, 255], width: 4, height: 1, color: CLS_TEST_PNG_GRAY)
        #expect(try decoder.decode(png).pixels == [0, 0, 0, 77, 77, 77, 200, 200, 200, 255, 255, 255])
    }

    @Test func gray16IsReducedToEightBits() throws {
        let png = try TestPNG.encode([0, 0x8080, 0xFFFF], width: 3, height: 1, color: CLS_TEST_PNG_GRAY, bitDepth: 16)
        #expect(try decoder.decode(png).pixels == [0, 0, 0, 128, 128, 128, 255, 255, 255])
    }

    @Test func rgb16IsTreatedAsSRGBNotLinear() throws {
        // 0x4040 / 257 = 64: a linear interpretation would brighten it to about 137.
        let samples: [UInt16] = [0xFFFF, 0x4040, 0x0000, 0x1212, 0xC0C0, 0x8080]
        let png = try TestPNG.encode(samples, width: 2, height: 1, color: CLS_TEST_PNG_RGB, bitDepth: 16)
        #expect(try decoder.decode(png).pixels == [255, 64, 0, 18, 192, 128])
    }

    @Test(arguments: [false, true])
    func sixteenBitWithSRGBChunkKeepsItsValues(interlaced: Bool) throws {
        // With an sRGB chunk libpng linearises the samples and we re-encode them; the round
        // trip may round differently by one level but must not shift the values visibly.
        let samples: [UInt16] = [0x0000, 0x2020, 0x4040, 0x8080, 0xC0C0, 0xFFFF]
        let png = try TestPNG.encode(
            samples, width: 6, height: 1, color: CLS_TEST_PNG_GRAY, bitDepth: 16, interlaced: interlaced,
            srgbChunk: true)
        let pixels = try decoder.decode(png).pixels
        let expected: [UInt8] = [0, 32, 64, 128, 192, 255]
        for (index, value) in expected.enumerated() {
            #expect(abs(Int(pixels[index * 3]) - Int(value)) <= 1, "sample \(index): \(pixels[index * 3])")
        }
    }

    @Test func sixteenBitHalfTransparentBlendsLikeEightBit() throws {
        let eight = try decoder.decode(TestPNG.encode([0, 0, 0, 128], width: 1, height: 1, color: CLS_TEST_PNG_RGBA))
        let sixteen = try decoder.decode(
            TestPNG.encode([0, 0, 0, 0x8080], width: 1, height: 1, color: CLS_TEST_PNG_RGBA, bitDepth: 16, interlaced: true))
        #expect(zip(eight.pixels, sixteen.pixels).allSatisfy { abs(Int($0) - Int($1)) <= 1 }, "\(eight.pixels) vs \(sixteen.pixels)")
    }

    @Test func opaqueAndTransparentAlphaCompositeOntoWhite() throws {
        // RGBA: opaque red, fully transparent green (shows the white background).
        let rgba = try TestPNG.encode([255, 0, 0, 255, 0, 255, 0, 0], width: 2, height: 1, color: CLS_TEST_PNG_RGBA)
        #expect(try decoder.decode(rgba).pixels == [255, 0, 0, 255, 255, 255])
        // Gray + alpha: opaque dark gray, transparent black.
        let grayAlpha = try TestPNG.encode([40, 255, 0, 0], width: 2, height: 1, color: CLS_TEST_PNG_GRAY_ALPHA)
        #expect(try decoder.decode(grayAlpha).pixels == [40, 40, 40, 255, 255, 255])
        // 16-bit RGBA behaves the same.
        let rgba16 = try TestPNG.encode(
            [0xFFFF, 0, 0, 0xFFFF, 0, 0xFFFF, 0, 0], width: 2, height: 1, color: CLS_TEST_PNG_RGBA, bitDepth: 16)
        #expect(try decoder.decode(rgba16).pixels == [255, 0, 0, 255, 255, 255])
    }

    @Test func halfTransparentPixelsBlendInLinearLight() throws {
        // 50% black over white: libpng blends in linear light, giving sRGB ~188, not 128.
        let png = try TestPNG.encode([0, 0, 0, 128], width: 1, height: 1, color: CLS_TEST_PNG_RGBA)
        let pixel = try decoder.decode(png).pixels
        #expect(pixel.allSatisfy { (186...189).contains($0) }, "got \(pixel)")
    }

    @Test(arguments: [false, true])
    func paletteWithTransparency(interlaced: Bool) throws {
        let palette: [UInt8] = [255, 0, 0, 0, 0, 255, 0, 255, 0]
        let alpha: [UInt8] = [255, 0]  // entry 2 has no tRNS value and is therefore opaque
        let png = try TestPNG.encode(
            [0, 1, 2, 1], width: 2, height: 2, color: CLS_TEST_PNG_PALETTE, interlaced: interlaced,
            palette: palette, paletteAlpha: alpha)
        let image = try decoder.decode(png)
        #expect(Self.rgbRows(image) == [[255, 0, 0], [255, 255, 255], [0, 255, 0], [255, 255, 255]])
    }

    @Test(arguments: [
        (CLS_TEST_PNG_GRAY, 1, 8), (CLS_TEST_PNG_GRAY_ALPHA, 2, 8), (CLS_TEST_PNG_RGB, 3, 8),
        (CLS_TEST_PNG_RGBA, 4, 8), (CLS_TEST_PNG_RGB, 3, 16), (CLS_TEST_PNG_RGBA, 4, 16),
    ])
    func interlacedEqualsNonInterlaced(color: cls_test_png_color, channels: Int, bitDepth: Int) throws {
        let (width, height) = (37, 23)  // odd sizes exercise partial Adam7 passes
        let samples = TestPictures.noise(count: width * height * channels * 2, seed: UInt64(channels * bitDepth))
        let values: [UInt16] = (0..<width * height * channels).map {
            let value = UInt16(samples[2 * $0]) << 8 | UInt16(samples[2 * $0 + 1])
            return bitDepth == 16 ? value : value & 0xFF
        }
        let plain = try decoder.decode(TestPNG.encode(values, width: width, height: height, color: color, bitDepth: bitDepth))
        let interlaced = try decoder.decode(
            TestPNG.encode(values, width: width, height: height, color: color, bitDepth: bitDepth, interlaced: true))
        #expect((plain.width, plain.height) == (width, height))
        let mismatches = zip(plain.pixels, interlaced.pixels).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(mismatches.isEmpty, "\(mismatches.count) bytes differ, first at \(mismatches.first.map { $0.offset / 3 } ?? -1)")
    }

    @Test func eXIfChunkIsFoundBeforeIDAT() throws {
        let tiff = TestPictures.exif(orientation: 6, bigEndian: true)
        let png = try TestPNG.encode([1, 2, 3], width: 1, height: 1, color: CLS_TEST_PNG_RGB, exif: tiff)
        let exif = try #require(TestPNG.chunkOffset("eXIf", in: png))
        let idat = try #require(TestPNG.chunkOffset("IDAT", in: png))
        #expect(exif < idat)
        #expect(png.withUnsafeBytes { PNGChunkReader.exifPayload(in: $0) } == tiff)
    }

    @Test func chunkReaderStopsAtImageDataAndSurvivesBadLengths() throws {
        let png = try TestPNG.encode([1, 2, 3], width: 1, height: 1, color: CLS_TEST_PNG_RGB)
        #expect(png.withUnsafeBytes { PNGChunkReader.exifPayload(in: $0) } == nil)
        // A chunk length running past the end of the data.
        var damaged = Array(png[0..<33])
        damaged += [0x7F, 0xFF, 0xFF, 0xFF] + Array("eXIf".utf8) + [1, 2, 3]
        #expect(damaged.withUnsafeBytes { PNGChunkReader.exifPayload(in: $0) } == nil)
        // Truncated in the middle of a chunk header.
        #expect(Array(png[0..<35]).withUnsafeBytes { PNGChunkReader.exifPayload(in: $0) } == nil)
    }
}
