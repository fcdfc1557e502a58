import Classify
import ClassifyTestSupport
import Foundation
import Testing

/// The committed fixture of every format and variant (`Scripts/make-format-fixtures`): a 48 x 32
/// picture of four flat quadrants, top left red, top right green, bottom left blue, bottom right
/// white. Each decodes to the expected size, upright, with the expected colour at each
/// quadrant's centre.
struct FormatFixtureTests {
    typealias RGB = (r: Int, g: Int, b: Int)
    static let red: RGB = (220, 30, 30), green: RGB = (30, 200, 40), blue: RGB = (30, 40, 210)
    static let white: RGB = (250, 250, 250)
    /// The quadrants as stored, turned 90 degrees clockwise (EXIF orientation 6, HEIF irot).
    static let upright: [RGB] = [red, green, blue, white]
    static let turned: [RGB] = [blue, red, white, green]
    static let mirrored: [RGB] = [green, red, white, blue]
    /// Mirrored top-bottom; turned a quarter anticlockwise then mirrored top-bottom (transverse);
    /// mirrored top-bottom then turned (transposed).
    static let upsideDown: [RGB] = [blue, white, red, green]
    static let transverse: [RGB] = [white, green, blue, red]
    static let transposed: [RGB] = [red, blue, green, white]
    /// The left half transparent, composited onto white paper.
    static let paper: RGB = (255, 255, 255)
    static let leftTransparent: [RGB] = [paper, green, paper, white]

    struct Fixture: CustomTestStringConvertible, Sendable {
        var file: String
        var format: ImageFormat
        var width = 48
        var height = 32
        var corners: [(r: Int, g: Int, b: Int)] = FormatFixtureTests.upright
        /// Largest difference allowed per channel (lossy codecs blur the colours a little).
        var tolerance = 12
        var testDescription: String { file }
    }

    static let fixtures: [Fixture] = [
        Fixture(file: "heic-plain.heic", format: .heif, tolerance: 24),
        Fixture(file: "heic-irot.heic", format: .heif, width: 32, height: 48, corners: turned, tolerance: 24),
        Fixture(file: "heic-imir.heic", format: .heif, corners: mirrored, tolerance: 24),
        Fixture(file: "heic-alpha.heic", format: .heif, corners: leftTransparent, tolerance: 24),
        Fixture(file: "heic-10bit.heic", format: .heif, tolerance: 24),
        // A 2 x 2 grid of 64 x 64 tiles cropped to a 112 x 80 picture; the same turned by irot; a
        // clean aperture cutting the 48 x 32 picture off-centre out of a 96 x 64 one.
        Fixture(file: "heic-grid.heic", format: .heif, width: 112, height: 80, tolerance: 24),
        Fixture(file: "heic-grid-irot.heic", format: .heif, width: 80, height: 112, corners: turned, tolerance: 24),
        Fixture(file: "heic-clap.heic", format: .heif, tolerance: 24),
        // Grids decoded tile by tile, their irot and imir in either order; tiles of 96 x 64.
        Fixture(file: "heic-grid-imir.heic", format: .heif, width: 112, height: 80, corners: upsideDown, tolerance: 24),
        Fixture(file: "heic-grid-irot-imir.heic", format: .heif, width: 80, height: 112, corners: transverse, tolerance: 24),
        Fixture(file: "heic-grid-imir-irot.heic", format: .heif, width: 80, height: 112, corners: transposed, tolerance: 24),
        Fixture(file: "heic-grid-3x2.heic", format: .heif, width: 270, height: 100, tolerance: 24),
        Fixture(file: "avif-plain.avif", format: .avif, tolerance: 24),
        Fixture(file: "avif-alpha.avif", format: .avif, corners: leftTransparent, tolerance: 24),
        Fixture(file: "avif-irot.avif", format: .avif, width: 32, height: 48, corners: turned, tolerance: 24),
        Fixture(file: "avif-grid.avif", format: .avif, width: 80, height: 112, corners: turned, tolerance: 24),
        Fixture(file: "webp-lossy.webp", format: .webp, tolerance: 24),
        Fixture(file: "webp-lossless.webp", format: .webp, tolerance: 0),
        Fixture(file: "webp-alpha.webp", format: .webp, corners: leftTransparent, tolerance: 0),
        Fixture(file: "webp-animated.webp", format: .webp, tolerance: 0),
        Fixture(file: "webp-exif6.webp", format: .webp, width: 32, height: 48, corners: turned, tolerance: 0),
        Fixture(file: "tiff-strips.tif", format: .tiff, tolerance: 0),
        Fixture(file: "tiff-tiles.tif", format: .tiff, tolerance: 0),
        Fixture(file: "tiff-16bit.tif", format: .tiff, tolerance: 0),
        Fixture(file: "tiff-rgba.tif", format: .tiff, corners: leftTransparent, tolerance: 0),
        Fixture(file: "tiff-cmyk.tif", format: .tiff, tolerance: 1),
        Fixture(file: "tiff-palette.tif", format: .tiff, tolerance: 0),
        Fixture(file: "tiff-orientation6.tif", format: .tiff, width: 32, height: 48, corners: turned, tolerance: 0),
        Fixture(file: "tiff-two-pages.tif", format: .tiff, tolerance: 0),
        Fixture(file: "gif-plain.gif", format: .gif, tolerance: 0),
        Fixture(file: "gif-transparent.gif", format: .gif, corners: leftTransparent, tolerance: 0),
        Fixture(file: "gif-animated.gif", format: .gif, tolerance: 0),
        // The raw file's 256 x 200 JPEG preview, turned by the raw file's orientation 6.
        Fixture(file: "raw-preview.dng", format: .raw, width: 200, height: 256, corners: turned, tolerance: 24),
    ]

    static func data(_ file: String) throws -> Data {
        let url = try #require(
            Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/formats"))
        return try Data(contentsOf: url)
    }

    static func pixel(_ image: DecodedImage, _ x: Int, _ y: Int) -> RGB {
        let offset = (y * image.width + x) * 3
        return (Int(image.pixels[offset]), Int(image.pixels[offset + 1]), Int(image.pixels[offset + 2]))
    }

    static func hasDecoder(for format: ImageFormat) -> Bool {
        format != .heif && format != .avif || ImageDecoder.availableFormats.contains(format)
    }

    @Test(arguments: fixtures)
    func decodesUprightWithTheQuadrantColours(_ fixture: Fixture) throws {
        guard Self.hasDecoder(for: fixture.format) else {
            print("skipped \(fixture.file): this libheif has no \(fixture.format) decoder")
            return
        }
        let image = try ImageDecoder().decode(Self.data(fixture.file))
        #expect(image.format == fixture.format)
        #expect(image.width == fixture.width && image.height == fixture.height, "\(image.width)x\(image.height)")
        guard image.width == fixture.width, image.height == fixture.height else { return }
        let points = [(1, 1), (3, 1), (1, 3), (3, 3)].map { (image.width * $0.0 / 4, image.height * $0.1 / 4) }
        for (point, expected) in zip(points, fixture.corners) {
            let got = Self.pixel(image, point.0, point.1)
            let difference = max(abs(got.r - expected.r), abs(got.g - expected.g), abs(got.b - expected.b))
            #expect(difference <= fixture.tolerance, "\(fixture.file) at \(point): \(got), expected \(expected)")
        }
    }

    /// The grid's black padding beyond the output size and the magenta canvas outside the clean
    /// aperture are cut away exactly: the outermost pixels are the quadrants' own.
    @Test(arguments: ["heic-grid.heic", "heic-grid-irot.heic", "heic-grid-3x2.heic", "heic-clap.heic"])
    func heifCropsLeaveNoEdgeBehind(_ file: String) throws {
        guard Self.hasDecoder(for: .heif) else {
            print("skipped \(file): this libheif has no HEIC decoder")
            return
        }
        let image = try ImageDecoder().decode(Self.data(file))
        let right = image.width - 1, bottom = image.height - 1
        let corners = file.contains("irot") ? Self.turned : Self.upright
        for ((x, y), expected) in zip([(0, 0), (right, 0), (0, bottom), (right, bottom)], corners) {
            let got = Self.pixel(image, x, y)
            let difference = max(abs(got.r - expected.r), abs(got.g - expected.g), abs(got.b - expected.b))
            #expect(difference <= 40, "\(file) at \(x),\(y): \(got), expected \(expected)")
        }
    }

    /// A grid whose tile has no size, or another size than the others, is a corrupt file. libheif
    /// 1.15 pasted such tiles by a size of 0 and left most of the picture as whatever its memory
    /// held: two decodes of one file differed (found by `Scripts/fuzz decode`, from this fixture
    /// with the first tile's `ispe` renamed).
    @Test(arguments: ["tile without a size", "tiles of two sizes"])
    func heifGridWithAnUnsizedTileIsCorrupt(_ damage: String) throws {
        guard Self.hasDecoder(for: .heif) else {
            print("skipped: this libheif has no HEIC decoder")
            return
        }
        var bytes = [UInt8](try Self.data("heic-grid-irot.heic"))
        let ispe = Array("ispe".utf8)
        let boxes = (0...(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == ispe }
        #expect(boxes.count == 5, "four tiles and the grid")
        if damage == "tile without a size" {
            bytes[boxes[0]] = UInt8(ascii: "x")  // 'xspe': a property libheif does not know
        } else {
            bytes[boxes[1] + 4 + 4 + 3] += 1  // the second tile's width: 65 instead of 64
        }
        let error = decodingError { try ImageDecoder().decode(Data(bytes)) }
        guard case .corrupt(let detail)? = error else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("grid"), "\(detail)")
    }

    @Test func grayTIFFKeepsItsLevels() throws {
        let image = try ImageDecoder().decode(Self.data("tiff-gray.tif"))
        #expect(image.width == 48 && image.height == 32)
        // Luma of the quadrants (0.299 R + 0.587 G + 0.114 B), the same in all three channels.
        for ((x, y), level) in zip([(12, 8), (36, 8), (12, 24), (36, 24)], [87, 131, 56, 250]) {
            let got = Self.pixel(image, x, y)
            #expect(got.r == level && got.g == level && got.b == level, "\(got) at \(x),\(y)")
        }
    }

    @Test func rawFileWithOnlyATinyPreviewSaysSo() throws {
        let error = decodingError { try ImageDecoder().decode(Self.data("raw-small-preview.dng")) }
        guard case .noPreview(let detail)? = error else {
            Issue.record("expected noPreview, got \(String(describing: error))")
            return
        }
        #expect(detail.contains("64x48"), "\(detail)")
        #expect(error?.stage == "decode")
    }

    @Test func scaledDecodingOfWebPKeepsTheShortSide() throws {
        let image = try ImageDecoder().decode(Self.data("webp-lossy.webp"), minimumShortSide: 16)
        #expect(image.width == 24 && image.height == 16)
        #expect(image.originalWidth == 48 && image.originalHeight == 32)
        // A lossless WebP keeps its exact pixels, as a PNG of it would.
        let lossless = try ImageDecoder().decode(Self.data("webp-lossless.webp"), minimumShortSide: 16)
        #expect(lossless.width == 48 && lossless.height == 32)
    }

    /// Every fixture cut short, or with a run of bytes overwritten in its middle, fails with a
    /// decoding error (or still decodes, when the damage missed what matters); never a crash.
    @Test(arguments: fixtures.map(\.file) + ["raw-small-preview.dng", "tiff-gray.tif"])
    func damagedFixturesFailCleanly(_ file: String) throws {
        let bytes = [UInt8](try Self.data(file))
        var generator = SeededRandom(seed: UInt64(bytes.count))
        for cut in [bytes.count / 2, bytes.count * 3 / 4, bytes.count - 1, 16] {
            _ = decodingError { try ImageDecoder().decode(Array(bytes.prefix(cut))) }
        }
        for _ in 0..<8 {
            var damaged = bytes
            let start = Int.random(in: 8..<max(9, damaged.count - 8), using: &generator)
            for index in start..<min(damaged.count, start + 8) { damaged[index] = UInt8.random(in: 0...255, using: &generator) }
            _ = try? ImageDecoder().decode(damaged)
        }
    }
}
