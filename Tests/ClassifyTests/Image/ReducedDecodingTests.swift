import CClassifyCodecs
import CClassifyTestEncoders
import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify

/// PNG, TIFF, HEIC and AVIF decoded for a minimum short side are reduced by 2, 4 or 8 as their
/// rows arrive. The result must be exactly the block means of the full-size decode (the rule
/// JPEG's DCT scaling follows: ceil(side / factor), edge blocks averaged over the pixels they
/// have), whichever path the decoder took (row by row, band by band, or whole then reduced).
@Suite("Reduced decoding")
struct ReducedDecodingTests {
    let decoder = ImageDecoder()

    /// The reference: block means of `image` by `factor`, rounded half up.
    static func blockMeans(_ image: DecodedImage, factor: Int) -> (width: Int, height: Int, pixels: [UInt8]) {
        let width = (image.width + factor - 1) / factor, height = (image.height + factor - 1) / factor
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for by in 0..<height {
            for bx in 0..<width {
                let ys = by * factor..<min(image.height, (by + 1) * factor)
                let xs = bx * factor..<min(image.width, (bx + 1) * factor)
                let count = ys.count * xs.count
                for c in 0..<3 {
                    var sum = 0
                    for y in ys { for x in xs { sum += Int(image.pixels[(y * image.width + x) * 3 + c]) } }
                    pixels[(by * width + bx) * 3 + c] = UInt8((sum + count / 2) / count)
                }
            }
        }
        return (width, height, pixels)
    }

    /// Random-ish pixels from a seed, so every block has its own mean.
    static func pixels(width: Int, height: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &random) }
    }

    /// Checks every factor the short side allows against the full-size decode of `bytes`.
    func expectBlockMeans(_ bytes: [UInt8], _ label: String) throws {
        let full = try decoder.decode(bytes)
        #expect(full.decodeScale == 1, "\(label)")
        let short = min(full.width, full.height)
        for factor in [2, 4, 8] {
            let minimum = (short + factor - 1) / factor
            let reduced = try decoder.decode(bytes, minimumShortSide: minimum)
            let expected = Self.blockMeans(full, factor: factor)
            #expect(reduced.decodeScale == factor, "\(label) factor \(factor)")
            #expect((reduced.width, reduced.height) == (expected.width, expected.height), "\(label) factor \(factor)")
            #expect(reduced.pixels == expected.pixels, "\(label) factor \(factor)")
            #expect((reduced.originalWidth, reduced.originalHeight) == (full.originalWidth, full.originalHeight), "\(label)")
        }
        // One pixel more than the 1/2 size keeps the full size.
        let unreduced = try decoder.decode(bytes, minimumShortSide: (short + 1) / 2 + 1)
        #expect(unreduced.pixels == full.pixels && unreduced.decodeScale == 1, "\(label)")
    }

    @Test func factorRuleMatchesJPEG() {
        // ceil(short / factor) >= minimum, largest factor first; 0 means full size.
        #expect(cls_reduction_factor(4000, 3000, 256) == 8)   // 375
        #expect(cls_reduction_factor(4000, 3000, 376) == 4)   // 750
        #expect(cls_reduction_factor(3000, 4000, 1000) == 2)  // 1500
        #expect(cls_reduction_factor(4000, 3000, 1501) == 1)
        #expect(cls_reduction_factor(23, 37, 3) == 8)         // ceil(23 / 8) = 3
        #expect(cls_reduction_factor(4000, 3000, 0) == 1)
    }

    @Test(arguments: [(37, 23), (16, 16), (9, 41), (61, 7)])
    func pngRowByRow(width: Int, height: Int) throws {
        let rgb = Self.pixels(width: width, height: height, seed: UInt64(width * 100 + height))
        let png = try TestPNG.encode(rgb.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB)
        try expectBlockMeans(png, "RGB \(width)x\(height)")
        let gray = Array(rgb.prefix(width * height))
        try expectBlockMeans(try TestPNG.encode(gray.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_GRAY), "gray")
        let palette: [UInt8] = (0..<256).flatMap { (index: Int) -> [UInt8] in [UInt8(index), UInt8(255 - index), UInt8(index / 2)] }
        try expectBlockMeans(
            try TestPNG.encode(gray.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_PALETTE, palette: palette),
            "palette")
        try expectBlockMeans(
            try TestPNG.encode(rgb.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB, srgbChunk: true), "sRGB chunk")
    }

    /// Layouts read whole by libpng's simplified API (Adam7, alpha, 16 bits), then reduced.
    @Test func pngReadWholeThenReduced() throws {
        let (width, height) = (29, 19)
        let rgb = Self.pixels(width: width, height: height, seed: 7)
        try expectBlockMeans(
            try TestPNG.encode(rgb.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB, interlaced: true), "Adam7")
        let rgba = Self.pixels(width: width, height: height * 4, seed: 8).prefix(width * height * 4)
        try expectBlockMeans(
            try TestPNG.encode(rgba.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGBA), "RGBA")
        try expectBlockMeans(
            try TestPNG.encode(rgb.map { UInt16($0) * 257 }, width: width, height: height, color: CLS_TEST_PNG_RGB, bitDepth: 16), "16-bit")
    }

    @Test(arguments: [1, 3, 16], [nil, 16] as [Int?])
    func tiffBandByBand(rowsPerStrip: Int, tileSize: Int?) throws {
        let (width, height) = (45, 37)
        let rgb = Self.pixels(width: width, height: height, seed: UInt64(rowsPerStrip))
        let tiff = try TestTIFF.encode(rgb, width: width, height: height, rowsPerStrip: rowsPerStrip, tileSize: tileSize)
        #expect(try decoder.decode(tiff).pixels == rgb)
        try expectBlockMeans(tiff, "TIFF strips of \(rowsPerStrip), tiles \(tileSize ?? 0)")
    }

    /// Orientation is applied after the reduction; with sides that are multiples of the factor,
    /// turning and block means commute, so the reference still applies.
    @Test func tiffOrientationAfterReduction() throws {
        let (width, height) = (48, 32)
        let rgb = Self.pixels(width: width, height: height, seed: 6)
        let tiff = try TestTIFF.encode(rgb, width: width, height: height, rowsPerStrip: 5, orientation: 6)
        let full = try decoder.decode(tiff)
        #expect((full.width, full.height) == (32, 48))
        try expectBlockMeans(tiff, "TIFF orientation 6")
    }

    @Test(arguments: ["heic-plain.heic", "heic-grid.heic", "heic-irot.heic", "heic-alpha.heic", "heic-10bit.heic", "avif-plain.avif", "avif-alpha.avif"])
    func heifFromLibheifsPlane(file: String) throws {
        let format: ImageFormat = file.hasSuffix(".avif") ? .avif : .heif
        guard ImageDecoder.availableFormats.contains(format) else {
            print("skipped \(file): this libheif has no \(format) decoder")
            return
        }
        let url = try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/formats"))
        try expectBlockMeans(Array(try Data(contentsOf: url)), file)
    }
}
