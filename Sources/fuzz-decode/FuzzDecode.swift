import CClassifyCodecs
import CClassifyTestEncoders
import Classify
import ClassifyTestSupport
import Foundation

// libFuzzer target over image decoding: JPEG and PNG bytes, and EXIF blocks (orientation, dates, GPS) carried
// by a small valid JPEG (APP1) or PNG (eXIf). Built with `Scripts/fuzz decode` (which defines
// FUZZING, so libFuzzer provides `main`); a normal build makes a tool that replays inputs and
// writes the seed corpus:
//
//     fuzz-decode --make-seeds DIR        # small JPEG/PNG/EXIF inputs to start from
//     fuzz-decode FILE...                 # run inputs through the target (reproduce a crash)
//     fuzz-decode --export INPUT OUTPUT   # the image file an input decodes (for regression tests)
//
// Input layout: byte 0 chooses what the rest is: bits 0-1 = 0 image bytes, 1 EXIF in a JPEG, 2 EXIF
// in a PNG, 3 image bytes decoded at reduced size; the other bits pick the reduced size.
//
// A decoded image of at most `faceDetectionPixelLimit` pixels also goes through both face
// detectors, BlazeFace as `index` runs it and MTCNN (any size and aspect ratio a file can claim:
// 1 x 60,000, 12 x 13, ...), and its middle third is decoded alone, which must give the same pixels.

/// The libFuzzer entry point: never returns non-zero; a bug is a crash, a sanitizer report or a
/// broken invariant (which traps).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDecodeOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    FuzzDecode.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// What one input exercises.
enum FuzzDecode {
    /// Largest picture decoded while fuzzing: headers may claim anything, and the pixel limit itself
    /// is tested elsewhere; this keeps a single input from allocating gigabytes.
    static let maximumPixelCount = 1 << 22
    /// Largest decoded image also run through face detection (small, so each input stays fast).
    static let faceDetectionPixelLimit = 1 << 16
    /// BlazeFace as `index` runs it, and MTCNN; then BlazeFace with the enlarged look at its
    /// smallest, 224 (an input shaped like the picture, whatever aspect ratio it claims), which
    /// costs each input a network of at least 224x224 and so runs only on the pictures whose width
    /// plus height is a multiple of 8 (`checkFaces(in:)`).
    static let faceDetectors: (always: [FaceDetector], enlarged: FaceDetector) = {
        do {
            let blazeFace = FaceDetector(model: try FaceDetectorModel.shared(.blazeFace))
            var enlarged = blazeFace
            enlarged.views = .enlarged(shortSide: 224)
            return ([blazeFace, FaceDetector(model: try FaceDetectorModel.shared(.mtcnn))], enlarged)
        } catch {
            fatalError("face model: \(error)")
        }
    }()

    /// The image an input stands for, and the decoding size to ask for.
    static func image(for input: [UInt8]) -> (bytes: [UInt8], minimumShortSide: Int?)? {
        guard let selector = input.first else { return nil }
        let payload = Array(input.dropFirst())
        switch selector & 3 {
        case 0: return (payload, nil)
        case 1: return exifJPEG(payload).map { ($0, nil) }
        case 2: return exifPNG(payload).map { ($0, nil) }
        default: return (payload, Int(selector >> 2) * 8 + 1)
        }
    }

    static func run(_ input: [UInt8]) {
        guard let (bytes, minimumShortSide) = image(for: input) else { return }
        var decoder = ImageDecoder()
        decoder.maximumPixelCount = maximumPixelCount
        do {
            let image = try decoder.decode(bytes, minimumShortSide: minimumShortSide)
            // Invariants of a decoded image.
            precondition(image.width > 0 && image.height > 0, "empty image decoded")
            precondition(image.pixels.count == image.width * image.height * 3, "pixel buffer does not match the size")
            precondition(image.originalWidth >= image.width && image.originalHeight >= image.height, "decoded larger than the original")
            if input.first.map({ $0 & 3 == 1 || $0 & 3 == 2 }) == true {
                // The carrier is 9x5: any orientation gives 9x5 or 5x9.
                precondition((image.width, image.height) == (9, 5) || (image.width, image.height) == (5, 9), "orientation changed the size")
            }
            checkMetadata(image.metadata)
            if image.width * image.height <= faceDetectionPixelLimit {
                checkFaces(in: image)
                checkRegion(of: image, bytes: bytes, minimumShortSide: minimumShortSide, decoder: decoder)
            }
        } catch {
            // Every failure is a typed error with a stage and a sentence.
            precondition(error.stage == "read" || error.stage == "decode", "unknown stage")
            precondition(!error.description.isEmpty, "empty description")
        }
    }

    /// The metadata read in the same pass (EXIF in modes 1 and 2, which the date, GPS and camera
    /// readers walk): whatever was read obeys the types' ranges.
    static func checkMetadata(_ metadata: PhotoMetadata) {
        if let taken = metadata.dateTaken {
            precondition(taken.year >= 1826 && (1...12).contains(taken.month) && (1...31).contains(taken.day), "bad date")
            precondition((0...23).contains(taken.hour) && (0...59).contains(taken.minute) && (0...59).contains(taken.second), "bad time")
            precondition(taken.utcOffsetMinutes.map { abs($0) <= 14 * 60 } ?? true, "bad offset")
        }
        if let location = metadata.location {
            precondition(abs(location.latitude) <= 90 && abs(location.longitude) <= 180, "bad position")
        }
    }

    /// Faces in any decodable picture: a result or a typed error, boxes finite and on the picture's scale.
    static func checkFaces(in image: DecodedImage) {
        for faceDetector in faceDetectors.always { checkFaces(in: image, with: faceDetector) }
        if (image.width + image.height) % 8 == 0 { checkFaces(in: image, with: faceDetectors.enlarged) }
    }

    static func checkFaces(in image: DecodedImage, with faceDetector: FaceDetector) {
        do {
            let result = try faceDetector.detect(in: image)
            precondition(result.width == image.originalWidth && result.height == image.originalHeight, "faces on another size")
            for face in result.faces {
                let box = face.pixelBoundingBox
                precondition([box.x, box.y, box.width, box.height].allSatisfy(\.isFinite) && box.width > 0 && box.height > 0, "bad face box")
                precondition(face.confidence >= faceDetector.minimumConfidence && face.confidence <= 1, "confidence out of range")
            }
        } catch {
            precondition(!error.description.isEmpty, "empty description")
        }
    }

    /// A part of a picture that decodes whole decodes too, to the same pixels (JPEG cut inside
    /// libjpeg, PNG in the row reducer).
    static func checkRegion(of image: DecodedImage, bytes: [UInt8], minimumShortSide: Int?, decoder: ImageDecoder) {
        let (width, height) = (Double(image.originalWidth), Double(image.originalHeight))
        let region = PixelRect(x: width / 3, y: height / 3, width: width / 3 + 1, height: height / 3 + 1)
        guard let part = try? decoder.decode(bytes, minimumShortSide: minimumShortSide, region: region) else {
            preconditionFailure("a picture that decodes whole failed in part")
        }
        let origin = part.imageRect(of: PixelRect(x: 0, y: 0, width: 0, height: 0))
        let (x0, y0) = (Int(-origin.x), Int(-origin.y))
        precondition(x0 >= 0 && y0 >= 0 && x0 + part.image.width <= image.width && y0 + part.image.height <= image.height, "part outside the picture")
        let rowBytes = part.image.width * 3
        for row in 0..<part.image.height {
            let whole = ((y0 + row) * image.width + x0) * 3
            precondition(part.image.pixels[(row * rowBytes)..<((row + 1) * rowBytes)] == image.pixels[whole..<(whole + rowBytes)], "part differs from the whole")
        }
    }

    /// A 9x5 picture whose corners differ, so every orientation gives different pixels.
    static let carrierPixels: [UInt8] = (0..<45).flatMap { index -> [UInt8] in
        let x = index % 9, y = index / 9
        return [UInt8(x * 28), UInt8(y * 60), UInt8((x + y) % 2 * 255)]
    }

    /// A small JPEG whose APP1 is "Exif\0\0" + `tiff` (nil when too long for a segment).
    static func exifJPEG(_ tiff: [UInt8]) -> [UInt8]? {
        let app1 = Array("Exif".utf8) + [0, 0] + tiff
        guard app1.count <= 65533 else { return nil }
        return try? TestJPEG.encode(carrierPixels, width: 9, height: 5, quality: 90, app1: app1)
    }

    /// A small PNG with an eXIf chunk holding `tiff`.
    static func exifPNG(_ tiff: [UInt8]) -> [UInt8]? {
        try? TestPNG.encode(carrierPixels.map(UInt16.init), width: 9, height: 5, color: CLS_TEST_PNG_RGB, exif: tiff)
    }
}

#if FUZZING
/// SwiftPM links an executable's entry point as `fuzz_decode_main` (aliased to `main`).
@_cdecl("fuzz_decode_main")
func fuzzingMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv, fuzzDecodeOneInput)
}
#else
/// The replay and seed tool of a normal build.
@main
enum FuzzDecodeTool {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "--make-seeds":
            guard arguments.count == 2 else { usage() }
            try makeSeeds(in: URL(fileURLWithPath: arguments[1]))
        case "--export":
            guard arguments.count == 3 else { usage() }
            let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: arguments[1])))
            guard let (bytes, _) = FuzzDecode.image(for: input) else { usage() }
            try Data(bytes).write(to: URL(fileURLWithPath: arguments[2]))
        case nil, "-h", "--help":
            usage()
        default:
            try replayFuzzInputs(arguments, through: FuzzDecode.run)
        }
    }

    static func usage() -> Never {
        print("usage: fuzz-decode --make-seeds DIR | --export INPUT OUTPUT | FILE...")
        exit(2)
    }

    /// Small valid and nearly valid inputs of every kind the target understands.
    static func makeSeeds(in directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var seeds: [String: [UInt8]] = [:]
        let pixels = (0..<(24 * 16)).flatMap { index -> [UInt8] in
            let x = index % 24, y = index / 24
            return [UInt8(x * 10), UInt8(y * 15), UInt8((x * y) % 256)]
        }
        func jpeg(_ samples: [UInt8], components: Int, scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE, ink: cls_test_jpeg_ink = CLS_TEST_JPEG_INK_ADOBE_CMYK) -> [UInt8] {
            (try? TestJPEG.encode(samples, width: 24, height: 16, components: components, quality: 75, scans: scans, ink: ink)) ?? []
        }
        func png(_ samples: [UInt16], color: cls_test_png_color, depth: Int = 8, interlaced: Bool = false, palette: [UInt8] = [], alpha: [UInt8] = []) -> [UInt8] {
            (try? TestPNG.encode(samples, width: 24, height: 16, color: color, bitDepth: depth, interlaced: interlaced, palette: palette, paletteAlpha: alpha)) ?? []
        }
        let gray = stride(from: 0, to: pixels.count, by: 3).map { pixels[$0] }
        let ink = stride(from: 0, to: pixels.count, by: 3).flatMap { (index: Int) -> [UInt8] in
            [pixels[index], pixels[index + 1], pixels[index + 2], 200]
        }
        seeds["jpeg-baseline"] = [0] + jpeg(pixels, components: 3)
        seeds["jpeg-progressive"] = [0] + jpeg(pixels, components: 3, scans: CLS_TEST_JPEG_PROGRESSIVE)
        seeds["jpeg-gray"] = [0] + jpeg(gray, components: 1)
        seeds["jpeg-cmyk"] = [0] + jpeg(ink, components: 4)
        seeds["jpeg-ycck"] = [0] + jpeg(ink, components: 4, ink: CLS_TEST_JPEG_INK_ADOBE_YCCK)
        seeds["jpeg-scaled"] = [3 | (1 << 2)] + jpeg(pixels, components: 3)
        seeds["png-rgb"] = [0] + png(pixels.map(UInt16.init), color: CLS_TEST_PNG_RGB)
        seeds["png-rgb16-interlaced"] = [0] + png(pixels.map { UInt16($0) * 257 }, color: CLS_TEST_PNG_RGB, depth: 16, interlaced: true)
        let grayAlpha = stride(from: 0, to: pixels.count, by: 3).flatMap { (index: Int) -> [UInt16] in
            [UInt16(pixels[index]), UInt16(pixels[index + 1])]
        }
        seeds["png-gray-alpha"] = [0] + png(grayAlpha, color: CLS_TEST_PNG_GRAY_ALPHA)
        seeds["png-palette-trns"] = [0] + png(gray.map { UInt16($0 % 4) }, color: CLS_TEST_PNG_PALETTE, palette: [255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9], alpha: [0, 128])
        func tiff(_ entries: [(UInt16, UInt16, UInt32, UInt32)], bigEndian: Bool = false) -> [UInt8] {
            func u16(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
            func u32(_ v: UInt32) -> [UInt8] { bigEndian ? u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) : u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) }
            var bytes = Array((bigEndian ? "MM" : "II").utf8) + u16(42) + u32(8) + u16(UInt16(entries.count))
            for (tag, type, count, value) in entries { bytes += u16(tag) + u16(type) + u32(count) + (type == 3 && bigEndian ? u16(UInt16(value)) + [0, 0] : u32(value)) }
            return bytes + u32(0)
        }
        for orientation in 1...8 {
            seeds["exif-jpeg-\(orientation)"] = [1] + tiff([(0x010F, 2, 4, 0x4E4F_4341), (0x0112, 3, 1, UInt32(orientation))])
            seeds["exif-png-\(orientation)-be"] = [2] + tiff([(0x0112, 3, 1, UInt32(orientation))], bigEndian: true)
        }
        seeds["exif-long"] = [1] + tiff([(0x0112, 4, 1, 6)])
        for (name, bytes) in seeds {
            try Data(bytes).write(to: directory.appending(path: name))
        }
        print("wrote \(seeds.count) seeds to \(directory.path)")
    }
}
#endif
