import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify

/// The recognition pipeline as `index` runs it: BlazeFace's boxes (not dlib's detector's), the
/// landmarks and chip cut from a decode large enough for the face, the descriptor. The same
/// person stays within dlib's 0.6 across scale, crop, light and JPEG quality; the two people of
/// the fixtures stay apart. Measured when written: BlazeFace's boxes land 0.07 (astronaut) and
/// 0.27 (cameraman) from dlib's own descriptors; the astronaut at JPEG quality 40 0.28 from the
/// original, half size 0.31, brighter 0.15, darker 0.13, cropped 0.07, and 0.71-0.80 from the
/// cameraman.
struct FaceRecognizerTests {
    static let recognizer: FaceRecognizer = {
        do { return try FaceRecognizer(contentsOf: ShippedLandmarkModel.directory) } catch { fatalError("shipped recognition models do not load: \(error)") }
    }()
    static let detector = FaceDetector(model: ShippedBlazeFace.model)

    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }

    /// The descriptor of the best face BlazeFace finds in a file's bytes.
    static func descriptor(ofFileBytes bytes: [UInt8]) throws -> [Float] {
        let found = try detector.detect(data: bytes)
        try #require(!found.faces.isEmpty, "no face found")
        let descriptors = recognizer.descriptors(for: found, decoding: bytes, with: ImageDecoder())
        return try #require(descriptors.first ?? nil)
    }

    static func fixtureBytes(_ file: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/faces")!))
    }

    /// `image` as a JPEG of `quality`.
    static func jpeg(_ image: DecodedImage, quality: Int = 95) throws -> [UInt8] {
        try TestJPEG.encode(image.pixels, width: image.width, height: image.height, quality: quality)
    }

    static func scaled(_ image: DecodedImage, by factor: Int) -> DecodedImage {
        // A box filter: each output pixel the mean of factor x factor input pixels.
        let width = image.width / factor, height = image.height / factor
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for channel in 0..<3 {
                    var sum = 0
                    for dy in 0..<factor {
                        for dx in 0..<factor { sum += Int(image.pixels[((y * factor + dy) * image.width + x * factor + dx) * 3 + channel]) }
                    }
                    pixels[(y * width + x) * 3 + channel] = UInt8(sum / (factor * factor))
                }
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels, format: .png)
    }

    @Test func blazeFaceBoxesGiveTheSamePersonAsDlibsOwnPipeline() throws {
        let golden = FaceDescriptorGoldenTests.golden.photos
        for photo in golden {
            let descriptor = try Self.descriptor(ofFileBytes: try Self.fixtureBytes(photo.file))
            let distance = Self.distance(descriptor, photo.descriptor)
            #expect(distance < FaceDescriptorModel.samePersonDistance / 2, "\(photo.file): \(distance) from dlib's descriptor")
            for other in golden where other.file != photo.file {
                #expect(Self.distance(descriptor, other.descriptor) > FaceDescriptorModel.samePersonDistance, "\(photo.file) against \(other.file)")
            }
        }
    }

    @Test func theSamePersonAcrossScaleCropLightAndQuality() throws {
        let original = try FaceLandmarkGoldenTests.image("astronaut.png")
        let reference = try Self.descriptor(ofFileBytes: try Self.fixtureBytes("astronaut.png"))
        let brighter = DecodedImage(
            width: original.width, height: original.height, pixels: original.pixels.map { UInt8(min(255, Int($0) * 5 / 4 + 10)) }, format: .png)
        let darker = DecodedImage(width: original.width, height: original.height, pixels: original.pixels.map { UInt8(Int($0) * 3 / 5) }, format: .png)
        // The left 70% and top 80%: the face stays whole, the frame around it changes.
        let cropWidth = original.width * 7 / 10, cropHeight = original.height * 8 / 10
        var cropped = [UInt8]()
        for y in 0..<cropHeight { cropped += original.pixels[(y * original.width * 3)..<(y * original.width * 3 + cropWidth * 3)] }
        let variants: [(String, [UInt8])] = [
            ("JPEG quality 40", try Self.jpeg(original, quality: 40)),
            ("half size", try Self.jpeg(Self.scaled(original, by: 2))),
            ("brighter", try Self.jpeg(brighter)),
            ("darker", try Self.jpeg(darker)),
            ("cropped", try Self.jpeg(DecodedImage(width: cropWidth, height: cropHeight, pixels: cropped, format: .png))),
        ]
        let other = try Self.descriptor(ofFileBytes: try Self.fixtureBytes("camera.png"))
        for (name, bytes) in variants {
            let descriptor = try Self.descriptor(ofFileBytes: bytes)
            #expect(Self.distance(descriptor, reference) < FaceDescriptorModel.samePersonDistance, "\(name): \(Self.distance(descriptor, reference))")
            #expect(Self.distance(descriptor, other) > FaceDescriptorModel.samePersonDistance, "\(name) against the cameraman")
        }
    }

    @Test func theDecodeIsLargeEnoughForTheSmallestFaceAndNoLarger() {
        let boxes = [PixelRect(x: 0, y: 0, width: 400, height: 420), PixelRect(x: 900, y: 100, width: 120, height: 150)]
        // 4000 x 3000: the 120-pixel face needs 100 pixels, so 3000 * 100 / 120 = 2500.
        #expect(Self.recognizer.decodeShortSide(for: boxes, width: 4000, height: 3000) == 2500)
        // A face smaller than 100 pixels asks for the whole photo, never more.
        #expect(Self.recognizer.decodeShortSide(for: [PixelRect(x: 0, y: 0, width: 40, height: 40)], width: 4000, height: 3000) == 3000)
        #expect(Self.recognizer.decodeShortSide(for: [], width: 4000, height: 3000) == nil)
        #expect(Self.recognizer.decodeShortSide(for: boxes, width: 0, height: 0) == nil)
    }

    @Test func boxesScaleToWhateverDecodeTheChipsComeFrom() throws {
        // The same boxes described from the full picture and from a half-size decode of it.
        let bytes = try Self.fixtureBytes("astronaut.png")
        let found = try Self.detector.detect(data: bytes)
        let boxes = found.faces.map(\.pixelBoundingBox)
        let full = Self.recognizer.descriptors(for: boxes, width: found.width, height: found.height, in: try ImageDecoder().decode(bytes))
        let half = Self.recognizer.descriptors(
            for: boxes, width: found.width, height: found.height, in: Self.scaled(try ImageDecoder().decode(bytes), by: 2))
        let a = try #require(full.first ?? nil), b = try #require(half.first ?? nil)
        // The astronaut's face is about 100 pixels wide: the half-size chip is blown up from 50,
        // which moves the descriptor (0.33 here), still well within the same person.
        #expect(Self.distance(a, b) < FaceDescriptorModel.samePersonDistance)
        // A box too small to hold a pixel has no descriptor.
        #expect(Self.recognizer.descriptors(for: [PixelRect(x: 5, y: 5, width: 0.2, height: 0.2)], width: found.width, height: found.height, in: try ImageDecoder().decode(bytes)) == [nil])
    }

    @Test(arguments: [1, 6, 8])
    func describingFromARegionGivesTheWholeDecodesDescriptors(orientation: Int) throws {
        // The astronaut photo pasted into a 2,000 x 1,500 JPEG turned by its EXIF orientation, the
        // face where BlazeFace finds it in the photo alone: the region around it is decoded.
        let face = try FaceLandmarkGoldenTests.image("astronaut.png")
        let alone = try Self.detector.detect(data: try Self.fixtureBytes("astronaut.png"))
        let (width, height) = (2000, 1500)
        var canvas = RegionDecodingTests.picture(width: width, height: height, seed: 7)
        for y in 0..<face.height {
            for x in 0..<face.width {
                for c in 0..<3 { canvas[((y + 700) * width + x + 900) * 3 + c] = face.pixels[(y * face.width + x) * 3 + c] }
            }
        }
        let turn = try #require(ImageOrientation(rawValue: orientation))
        // Stored so that the orientation turns it back into the canvas.
        let inverse: ImageOrientation = switch turn { case .rotate90Clockwise: .rotate90CounterClockwise; case .rotate90CounterClockwise: .rotate90Clockwise; default: turn }
        let stored = OrientationTransform.apply(inverse, to: canvas, width: width, height: height)
        let app1 = TestPictures.jpegAPP1(TestPictures.exif(orientation: UInt16(orientation), bigEndian: false))
        let bytes = try TestJPEG.encode(stored.pixels, width: stored.width, height: stored.height, app1: app1)
        let boxes = alone.faces.map { PixelRect(x: $0.pixelBoundingBox.x + 900, y: $0.pixelBoundingBox.y + 700, width: $0.pixelBoundingBox.width, height: $0.pixelBoundingBox.height) }
        try #require(boxes.count == 1)
        let side = try #require(Self.recognizer.decodeShortSide(for: boxes, width: width, height: height))
        let whole = Self.recognizer.descriptors(for: boxes, width: width, height: height, in: try ImageDecoder().decode(bytes, minimumShortSide: side))
        let fromRegion = Self.recognizer.descriptors(for: boxes, width: width, height: height, decoding: bytes, with: ImageDecoder())
        let a = try #require(whole.first ?? nil), b = try #require(fromRegion.first ?? nil)
        #expect(Self.distance(a, b) < 1e-5, "orientation \(orientation): \(Self.distance(a, b)) between the whole decode's descriptor and the region's")
        let region = FaceRecognizer.regionAround(boxes, width: width, height: height)
        #expect(region.width * region.height < Double(width * height) / 20, "the region \(region) is a small part of the photo")
    }

    @Test func theRegionHoldsEveryFaceWithRoomAround() {
        let boxes = [PixelRect(x: 100, y: 200, width: 50, height: 60), PixelRect(x: 900, y: 10, width: 40, height: 40)]
        let region = FaceRecognizer.regionAround(boxes, width: 1000, height: 800)
        #expect(region == PixelRect(x: 50, y: 0, width: 930, height: 320))
        #expect(FaceRecognizer.regionAround([], width: 1000, height: 800) == PixelRect(x: 0, y: 0, width: 1000, height: 800))
    }
}
