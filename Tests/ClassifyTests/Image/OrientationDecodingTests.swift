import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Testing

@testable import Classify

/// Encodes a picture as a camera would store it (sensor order plus an orientation tag) and
/// checks the decoder turns it upright. The stored layout is derived from the EXIF
/// specification's table ("where the 0th row and 0th column of the stored image are shown"),
/// not from the implementation's transform.
@Suite("EXIF orientation applied to decoded pixels")
struct OrientationDecodingTests {
    enum Side { case top, bottom, left, right }

    /// EXIF 2.3, tag 0x0112: visual side of the stored image's 0th row, then of its 0th column.
    static let exifTable: [Int: (row: Side, column: Side)] = [
        1: (.top, .left), 2: (.top, .right), 3: (.bottom, .right), 4: (.bottom, .left),
        5: (.left, .top), 6: (.right, .top), 7: (.right, .bottom), 8: (.left, .bottom),
    ]

    static let upright: [String: [UInt8]] = [
        "topLeft": [255, 0, 0], "topRight": [0, 255, 0], "bottomLeft": [0, 0, 255], "bottomRight": [255, 255, 255],
    ]
    static let (visualWidth, visualHeight) = (64, 32)

    static func opposite(_ side: Side) -> Side {
        switch side {
        case .top: .bottom
        case .bottom: .top
        case .left: .right
        case .right: .left
        }
    }

    /// Colour of the visual corner where two sides meet.
    static func corner(_ a: Side, _ b: Side) -> [UInt8] {
        let vertical = [a, b].first { $0 == .top || $0 == .bottom }!
        let horizontal = [a, b].first { $0 == .left || $0 == .right }!
        return upright[(vertical == .top ? "top" : "bottom") + (horizontal == .left ? "Left" : "Right")]!
    }

    /// The stored (sensor-order) RGB pixels and size for `orientation`.
    static func stored(orientation: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        let (row, column) = exifTable[orientation]!
        let rowsRunHorizontally = row == .top || row == .bottom
        let (width, height) = rowsRunHorizontally ? (visualWidth, visualHeight) : (visualHeight, visualWidth)
        let pixels = TestPictures.quadrants(
            width: width, height: height,
            topLeft: corner(row, column), topRight: corner(row, opposite(column)),
            bottomLeft: corner(opposite(row), column), bottomRight: corner(opposite(row), opposite(column)))
        return (pixels, width, height)
    }

    static func expectUpright(_ image: DecodedImage, tolerance: Int, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect((image.width, image.height) == (visualWidth, visualHeight), sourceLocation: sourceLocation)
        #expect((image.originalWidth, image.originalHeight) == (visualWidth, visualHeight), sourceLocation: sourceLocation)
        let inset = 3, right = image.width - 1 - inset, bottom = image.height - 1 - inset
        let checks: [(String, Int, Int)] = [
            ("topLeft", inset, inset), ("topRight", right, inset), ("bottomLeft", inset, bottom), ("bottomRight", right, bottom),
        ]
        for (name, x, y) in checks {
            let actual = TestPictures.pixel(image, x: x, y: y)
            #expect(
                TestPictures.isClose(actual, upright[name]!, tolerance: tolerance),
                "\(name) is \(actual), expected \(upright[name]!)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: 1...8)
    func jpegComesOutUpright(orientation: Int) throws {
        let stored = Self.stored(orientation: orientation)
        let app1 = TestPictures.jpegAPP1(TestPictures.exif(orientation: UInt16(orientation), bigEndian: orientation % 2 == 0))
        let jpeg = try TestJPEG.encode(stored.pixels, width: stored.width, height: stored.height, app1: app1)
        Self.expectUpright(try ImageDecoder().decode(jpeg), tolerance: 8)
    }

    @Test(arguments: 1...8)
    func pngComesOutUpright(orientation: Int) throws {
        let stored = Self.stored(orientation: orientation)
        let exif = TestPictures.exif(orientation: UInt16(orientation), bigEndian: orientation % 2 == 1)
        let png = try TestPNG.encode(
            stored.pixels.map(UInt16.init), width: stored.width, height: stored.height, color: CLS_TEST_PNG_RGB, exif: exif)
        Self.expectUpright(try ImageDecoder().decode(png), tolerance: 0)
    }

    @Test func scaledJPEGReportsOrientedFullSize() throws {
        // Stored 512x1024 with "rotate 90 clockwise": upright it is 1024x512.
        let rgb = [UInt8](repeating: 120, count: 512 * 1024 * 3)
        let app1 = TestPictures.jpegAPP1(TestPictures.exif(orientation: 6, bigEndian: true))
        let jpeg = try TestJPEG.encode(rgb, width: 512, height: 1024, quality: 70, app1: app1)
        let image = try ImageDecoder().decode(jpeg, minimumShortSide: 256)
        #expect((image.width, image.height, image.decodeScale) == (512, 256, 2))
        #expect((image.originalWidth, image.originalHeight) == (1024, 512))
    }

    @Test func malformedExifLeavesTheImageAsStored() throws {
        let stored = Self.stored(orientation: 1)
        var exif = TestPictures.exif(orientation: 6, bigEndian: false)
        exif.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0, 0])  // IFD0 offset outside the segment
        let jpeg = try TestJPEG.encode(stored.pixels, width: stored.width, height: stored.height, app1: TestPictures.jpegAPP1(exif))
        Self.expectUpright(try ImageDecoder().decode(jpeg), tolerance: 8)
    }
}
