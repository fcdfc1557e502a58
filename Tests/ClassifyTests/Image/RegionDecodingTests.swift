import CClassifyTestEncoders
import Foundation
import ClassifyTestSupport
import Testing

@testable import Classify

/// Decoding a part of a photo gives the pixels a whole decode at the same scale has there: JPEG
/// cut by libjpeg itself (rows skipped, columns not transformed) under every EXIF orientation,
/// progressive, gray and CMYK files, reduced scales; PNG, TIFF, HEIC and AVIF cut in the row
/// reducer; WebP and GIF after a whole decode.
@Suite("Decoding a region of a photo")
struct RegionDecodingTests {
    /// A smooth picture with detail (gradients and a few hard edges), so chroma upsampling and
    /// block edges matter, `width` x `height` x `components`.
    static func picture(width: Int, height: Int, components: Int = 3, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        let phase = Double(random.bytes(1)[0]) / 40
        var pixels = [UInt8](repeating: 0, count: width * height * components)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<components {
                    let wave = sin(Double(x) * 0.07 + Double(c) + phase) * cos(Double(y) * 0.05 - Double(c))
                    let edge = (x / 23 + y / 17) % 3 == 0 ? 60.0 : 0
                    pixels[(y * width + x) * components + c] = UInt8(max(0, min(255, 110 + 80 * wave + edge)))
                }
            }
        }
        return pixels
    }

    /// Checks `part` against the same pixels of `whole` and that it covers `region`.
    static func expectSame(_ part: DecodedRegion, _ whole: DecodedImage, covering region: PixelRect, _ label: String) {
        #expect((part.image.originalWidth, part.image.originalHeight) == (whole.originalWidth, whole.originalHeight), "\(label)")
        #expect(part.image.decodeScale == whole.decodeScale, "\(label)")
        let inImage = part.imageRect(of: region)
        // The region lies inside the part (up to the rounding to whole pixels at this scale).
        #expect(inImage.x > -1e-9 && inImage.y > -1e-9, "\(label): region starts at \(inImage)")
        #expect(inImage.x + inImage.width < Double(part.image.width) + 1e-9, "\(label): \(inImage) in \(part.image.width)")
        #expect(inImage.y + inImage.height < Double(part.image.height) + 1e-9, "\(label): \(inImage) in \(part.image.height)")
        var largest = 0
        for y in 0..<part.image.height {
            for x in 0..<part.image.width {
                let a = TestPictures.pixel(part.image, x: x, y: y)
                let b = TestPictures.pixel(whole, x: part.crop.x + x, y: part.crop.y + y)
                for (p, q) in zip(a, b) { largest = max(largest, abs(Int(p) - Int(q))) }
            }
        }
        #expect(largest == 0, "\(label): pixels differ from the whole decode by up to \(largest)")
    }

    @Test(arguments: 1...8)
    func jpegRegionsMatchTheWholeDecodeInEveryOrientation(orientation: Int) throws {
        let (width, height) = (203, 157)
        let app1 = TestPictures.jpegAPP1(TestPictures.exif(orientation: UInt16(orientation), bigEndian: false))
        let files: [(String, [UInt8])] = [
            ("baseline", try TestJPEG.encode(Self.picture(width: width, height: height, seed: 1), width: width, height: height, app1: app1)),
            ("progressive", try TestJPEG.encode(
                Self.picture(width: width, height: height, seed: 2), width: width, height: height, scans: CLS_TEST_JPEG_PROGRESSIVE, app1: app1)),
            ("gray", try TestJPEG.encode(
                Self.picture(width: width, height: height, components: 1, seed: 8), width: width, height: height, components: 1, app1: app1)),
            ("CMYK", try TestJPEG.encode(
                Self.picture(width: width, height: height, components: 4, seed: 3), width: width, height: height, components: 4, app1: app1)),
        ]
        let swaps = orientation >= 5
        let (uprightWidth, uprightHeight) = swaps ? (height, width) : (width, height)
        let regions = [
            PixelRect(x: 37.4, y: 21.7, width: 51.2, height: 40.9),
            PixelRect(x: 0, y: 0, width: 9, height: 13),
            PixelRect(x: Double(uprightWidth) - 30.5, y: Double(uprightHeight) - 18.25, width: 30.5, height: 18.25),
            PixelRect(x: 101, y: 3, width: 1, height: 140),
        ]
        for (kind, bytes) in files {
            for side in [nil, 70, 40] as [Int?] {
                let whole = try ImageDecoder().decode(bytes, minimumShortSide: side)
                for region in regions {
                    let part = try ImageDecoder().decode(bytes, minimumShortSide: side, region: region)
                    Self.expectSame(part, whole, covering: region, "\(kind), orientation \(orientation), side \(side ?? 0), \(region)")
                }
            }
        }
    }

    /// Every format fixture (PNG, TIFF, HEIC and AVIF cut in their row reducer; WebP and GIF after
    /// the whole decode; raw previews in libjpeg), whole and reduced, gives a whole decode's pixels.
    @Test func everyFormatFixtureGivesTheWholeDecodesPixels() throws {
        let folder = try #require(Bundle.module.url(forResource: "formats", withExtension: nil, subdirectory: "Fixtures"))
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(files.count >= 20)
        for file in files {
            let bytes = [UInt8](try Data(contentsOf: folder.appending(path: file)))
            guard let probe = try? ImageDecoder().decode(bytes) else { continue }   // fixtures of unsupported kinds
            let (width, height) = (Double(probe.originalWidth), Double(probe.originalHeight))
            let regions = [
                PixelRect(x: width * 0.3, y: height * 0.2, width: width * 0.25, height: height * 0.4),
                PixelRect(x: 0, y: height * 0.9, width: width, height: height * 0.1),
                PixelRect(x: width - 3, y: 0, width: 3, height: 2),
            ]
            for side in [nil, Int(min(width, height) / 4)] as [Int?] {
                let whole = try ImageDecoder().decode(bytes, minimumShortSide: side)
                for region in regions {
                    let part = try ImageDecoder().decode(bytes, minimumShortSide: side, region: region)
                    Self.expectSame(part, whole, covering: region, "\(file), side \(side ?? 0), \(region)")
                }
            }
        }
    }

    @Test(arguments: 1...8)
    func pngAndTIFFRegionsMatchInEveryOrientation(orientation: Int) throws {
        let (width, height) = (61, 45)
        let pixels = Self.picture(width: width, height: height, seed: 9)
        let exif = TestPictures.exif(orientation: UInt16(orientation), bigEndian: false)
        let files: [(String, [UInt8])] = [
            ("PNG", try TestPNG.encode(pixels.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB, exif: exif)),
            ("interlaced PNG", try TestPNG.encode(
                pixels.map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB, interlaced: true, exif: exif)),
            ("TIFF", try TestTIFF.encode(pixels, width: width, height: height, orientation: orientation)),
            ("tiled TIFF", try TestTIFF.encode(pixels, width: width, height: height, tileSize: 16, orientation: orientation)),
        ]
        let swaps = orientation >= 5
        let (uprightWidth, uprightHeight) = swaps ? (Double(height), Double(width)) : (Double(width), Double(height))
        let regions = [
            PixelRect(x: 7.5, y: 3.2, width: 20, height: 11),
            PixelRect(x: uprightWidth - 5, y: uprightHeight - 4, width: 5, height: 4),
        ]
        for (kind, bytes) in files {
            for side in [nil, 20, 10] as [Int?] {
                let whole = try ImageDecoder().decode(bytes, minimumShortSide: side)
                for region in regions {
                    let part = try ImageDecoder().decode(bytes, minimumShortSide: side, region: region)
                    Self.expectSame(part, whole, covering: region, "\(kind), orientation \(orientation), side \(side ?? 0), \(region)")
                }
            }
        }
    }

    @Test func aRegionIsTheWholePixelRectangleThatCoversIt() throws {
        let (width, height) = (91, 67)
        let png = try TestPNG.encode(Self.picture(width: width, height: height, seed: 4).map(UInt16.init), width: width, height: height, color: CLS_TEST_PNG_RGB)
        let whole = try ImageDecoder().decode(png)
        let region = PixelRect(x: 10.5, y: 20.5, width: 30, height: 11)
        let part = try ImageDecoder().decode(png, region: region)
        Self.expectSame(part, whole, covering: region, "PNG")
        #expect((part.image.width, part.image.height) == (31, 12))
    }

    @Test func regionsOutsideThePhotoAreClippedToIt() throws {
        let jpeg = try TestJPEG.encode(Self.picture(width: 64, height: 48, seed: 5), width: 64, height: 48)
        let whole = try ImageDecoder().decode(jpeg)
        let cases: [PixelRect] = [
            PixelRect(x: -20, y: -10, width: 30, height: 20),
            PixelRect(x: 50, y: 40, width: 100, height: 100),
            PixelRect(x: 500, y: 500, width: 10, height: 10),
            PixelRect(x: .nan, y: .infinity, width: -5, height: .nan),
        ]
        for region in cases {
            let part = try ImageDecoder().decode(jpeg, region: region)
            #expect(part.image.width >= 1 && part.image.height >= 1)
            #expect(part.crop.x + part.crop.width <= 64 && part.crop.y + part.crop.height <= 48, "\(region): \(part.crop)")
            Self.expectSame(part, whole, covering: PixelRect(x: Double(part.crop.x), y: Double(part.crop.y), width: 1, height: 1), "\(region)")
        }
    }

    @Test func aCorruptJPEGFailsAsAWholeDecodeWould() throws {
        var jpeg = try TestJPEG.encode(Self.picture(width: 64, height: 48, seed: 6), width: 64, height: 48)
        jpeg.removeLast(jpeg.count / 2)
        #expect(throws: ImageDecodingError.self) { try ImageDecoder().decode(jpeg, region: PixelRect(x: 0, y: 30, width: 20, height: 10)) }
    }

    /// The stored rectangle that an orientation turns into the upright one: cutting it from the
    /// stored pixels and turning the cut upright gives the cut of the upright picture.
    @Test(arguments: 1...8)
    func storedRectanglesTurnIntoTheUprightOnes(orientation: Int) throws {
        let turn = try #require(ImageOrientation(rawValue: orientation))
        let (width, height) = (13, 7)
        let stored = TestPictures.noise(count: width * height * 3, seed: UInt64(orientation))
        let upright = OrientationTransform.apply(turn, to: stored, width: width, height: height)
        let storedImage = DecodedImage(width: width, height: height, pixels: stored, format: .png)
        let uprightImage = DecodedImage(width: upright.width, height: upright.height, pixels: upright.pixels, format: .png)
        var random = SeededRandom(seed: 99)
        for _ in 0..<40 {
            let bytes = random.bytes(4).map(Int.init)
            let x = bytes[0] % upright.width, y = bytes[1] % upright.height
            let crop = ImageCrop(
                x: x, y: y, width: 1 + bytes[2] % (upright.width - x), height: 1 + bytes[3] % (upright.height - y),
                wholeWidth: upright.width, wholeHeight: upright.height)
            let storedCrop = crop.stored(undoing: turn)
            #expect((storedCrop.wholeWidth, storedCrop.wholeHeight) == (width, height))
            let cut = storedImage.cropped(to: storedCrop)
            let turned = OrientationTransform.apply(turn, to: cut.pixels, width: cut.width, height: cut.height)
            #expect(turned.pixels == uprightImage.cropped(to: crop).pixels, "orientation \(orientation), \(crop) -> \(storedCrop)")
        }
    }
}
