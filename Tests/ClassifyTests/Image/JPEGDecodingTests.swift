import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Testing

@testable import Classify

@Suite("JPEG decoding")
struct JPEGDecodingTests {
    let decoder = ImageDecoder()
    static let red: [UInt8] = [255, 0, 0], green: [UInt8] = [0, 255, 0]
    static let blue: [UInt8] = [0, 0, 255], grey: [UInt8] = [128, 128, 128]
    /// Baseline JPEG at quality 95 keeps flat 16x16-aligned areas within a few levels.
    static let tolerance = 8

    /// Checks the pixel a few steps inside each corner of a 64x32 quadrant picture.
    static func expectQuadrants(
        _ image: DecodedImage, _ topLeft: [UInt8], _ topRight: [UInt8], _ bottomLeft: [UInt8],
        _ bottomRight: [UInt8], tolerance: Int = tolerance, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let inset = 3, right = image.width - 1 - inset, bottom = image.height - 1 - inset
        let samples = [
            (TestPictures.pixel(image, x: inset, y: inset), topLeft),
            (TestPictures.pixel(image, x: right, y: inset), topRight),
            (TestPictures.pixel(image, x: inset, y: bottom), bottomLeft),
            (TestPictures.pixel(image, x: right, y: bottom), bottomRight),
        ]
        for (actual, expected) in samples {
            #expect(
                TestPictures.isClose(actual, expected, tolerance: tolerance),
                "got \(actual), expected \(expected)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [CLS_TEST_JPEG_BASELINE, CLS_TEST_JPEG_PROGRESSIVE])
    func rgbQuadrantsKeepTheirColours(scans: cls_test_jpeg_scans) throws {
        let rgb = TestPictures.quadrants(
            width: 64, height: 32, topLeft: Self.red, topRight: Self.green,
            bottomLeft: Self.blue, bottomRight: Self.grey)
        let image = try decoder.decode(TestJPEG.encode(rgb, width: 64, height: 32, scans: scans))
        #expect(image.format == .jpeg)
        #expect((image.width, image.height) == (64, 32))
        #expect((image.originalWidth, image.originalHeight, image.decodeScale) == (64, 32, 1))
        #expect(image.pixels.count == 64 * 32 * 3)
        Self.expectQuadrants(image, Self.red, Self.green, Self.blue, Self.grey)
    }

    @Test(arguments: [CLS_TEST_JPEG_BASELINE, CLS_TEST_JPEG_PROGRESSIVE])
    func grayscaleBecomesEqualRGB(scans: cls_test_jpeg_scans) throws {
        let gray = TestPictures.quadrants(
            width: 64, height: 32, topLeft: [30], topRight: [90], bottomLeft: [160], bottomRight: [220])
        let image = try decoder.decode(TestJPEG.encode(gray, width: 64, height: 32, components: 1, scans: scans))
        for index in stride(from: 0, to: image.pixels.count, by: 3) {
            let (r, g, b) = (image.pixels[index], image.pixels[index + 1], image.pixels[index + 2])
            guard r == g && g == b else {
                Issue.record("pixel \(index / 3) is not gray: \(r) \(g) \(b)")
                return
            }
        }
        Self.expectQuadrants(image, [30, 30, 30], [90, 90, 90], [160, 160, 160], [220, 220, 220])
    }

    /// Ink amounts (0 = none, 255 = full) for red, green, blue and 50% black.
    static let inks: [[UInt8]] = [[0, 255, 255, 0], [255, 0, 255, 0], [255, 255, 0, 0], [0, 0, 0, 128]]

    @Test(arguments: [CLS_TEST_JPEG_INK_ADOBE_CMYK, CLS_TEST_JPEG_INK_PLAIN_CMYK, CLS_TEST_JPEG_INK_ADOBE_YCCK])
    func inkJPEGsConvertToRGB(ink: cls_test_jpeg_ink) throws {
        // Adobe files store ink inverted; plain CMYK files store it as is.
        let stored = ink == CLS_TEST_JPEG_INK_PLAIN_CMYK ? Self.inks : Self.inks.map { $0.map { 255 - $0 } }
        let cmyk = TestPictures.quadrants(
            width: 64, height: 32, topLeft: stored[0], topRight: stored[1], bottomLeft: stored[2],
            bottomRight: stored[3])
        let image = try decoder.decode(TestJPEG.encode(cmyk, width: 64, height: 32, components: 4, ink: ink))
        #expect((image.width, image.height) == (64, 32))
        Self.expectQuadrants(image, Self.red, Self.green, Self.blue, [127, 127, 127])
    }

    struct ScaleCase: Sendable, CustomTestStringConvertible {
        let width: Int, height: Int, minimumShortSide: Int?
        let expectedWidth: Int, expectedHeight: Int, expectedScale: Int
        var testDescription: String { "\(width)x\(height) min \(minimumShortSide.map(String.init) ?? "nil")" }
    }

    @Test(arguments: [
        ScaleCase(width: 2048, height: 1536, minimumShortSide: 256, expectedWidth: 512, expectedHeight: 384, expectedScale: 4),
        ScaleCase(width: 2048, height: 1536, minimumShortSide: 192, expectedWidth: 256, expectedHeight: 192, expectedScale: 8),
        ScaleCase(width: 2048, height: 1536, minimumShortSide: nil, expectedWidth: 2048, expectedHeight: 1536, expectedScale: 1),
        ScaleCase(width: 1000, height: 1000, minimumShortSide: 256, expectedWidth: 500, expectedHeight: 500, expectedScale: 2),
        ScaleCase(width: 300, height: 200, minimumShortSide: 256, expectedWidth: 300, expectedHeight: 200, expectedScale: 1),
        ScaleCase(width: 600, height: 2000, minimumShortSide: 256, expectedWidth: 300, expectedHeight: 1000, expectedScale: 2),
    ])
    func dctScalingPicksTheSmallestSufficientScale(_ scale: ScaleCase) throws {
        let rgb = [UInt8](repeating: 90, count: scale.width * scale.height * 3)
        let jpeg = try TestJPEG.encode(rgb, width: scale.width, height: scale.height, quality: 75)
        let image = try decoder.decode(jpeg, minimumShortSide: scale.minimumShortSide)
        #expect((image.width, image.height) == (scale.expectedWidth, scale.expectedHeight))
        #expect(image.decodeScale == scale.expectedScale)
        #expect((image.originalWidth, image.originalHeight) == (scale.width, scale.height))
        #expect(TestPictures.isClose(TestPictures.pixel(image, x: image.width / 2, y: image.height / 2), [90, 90, 90], tolerance: 2))
    }

    @Test func orientationIsReadFromAPP1() throws {
        let rgb = [UInt8](repeating: 50, count: 16 * 16 * 3)
        let tiff = TestPictures.exif(orientation: 3, bigEndian: false)
        let jpeg = try TestJPEG.encode(rgb, width: 16, height: 16, app1: TestPictures.jpegAPP1(tiff))
        let decoded = try jpeg.withUnsafeBytes { bytes in
            try JPEGDecoding.decode(bytes, minimumShortSide: nil, maximumPixelCount: 1_000)
        }
        #expect(decoded.orientation == .rotate180)
        #expect((decoded.width, decoded.height, decoded.scaleDenominator) == (16, 16, 1))
    }

    @Test func nonExifAPP1IsIgnored() throws {
        let rgb = [UInt8](repeating: 50, count: 16 * 16 * 3)
        let xmp = Array("http://ns.adobe.com/xap/1.0/\0<x:xmpmeta/>".utf8)
        let jpeg = try TestJPEG.encode(rgb, width: 16, height: 16, app1: xmp)
        let decoded = try jpeg.withUnsafeBytes { bytes in
            try JPEGDecoding.decode(bytes, minimumShortSide: nil, maximumPixelCount: 1_000)
        }
        #expect(decoded.orientation == .identity)
    }
}
