import CClassifyCodecs
import CClassifyTestEncoders
import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify

/// Our own Huffman decoder reads sequential scans in libjpeg's place, passing the coefficients no
/// IDCT reads (1/8 scale, crops, skipped rows). It must hand libjpeg exactly the coefficients
/// libjpeg's decoder would for every block it transforms (so every pixel is the same), and on damaged
/// data it must either do the same or leave the file to libjpeg, whose verdict then stands. Both of
/// its loops are checked: the BMI2 one (where the CPU has BMI2) and the baseline one.
@Suite("JPEG Huffman decoder")
struct JPEGHuffmanDecoderTests {
    struct Outcome: Equatable {
        var status: cls_status
        var message: String
        var pixels: [UInt8]
        var ours: Bool
    }

    /// Decodes `jpeg` through the C decoder, with our Huffman decoder (its BMI2 loop where the CPU
    /// has one, or its baseline loop) or libjpeg's: at the smallest scale whose short side is at
    /// least `shortSide` (1: 1/8; 0: full size), and only `crop` of that output when given.
    static func decode(
        _ jpeg: [UInt8], library: Bool, baseline: Bool = false, shortSide: UInt32 = 1, crop: cls_output_crop? = nil
    ) -> Outcome {
        var decoder: OpaquePointer?
        var header = cls_jpeg_header()
        var message = cls_message()
        var status = cls_jpeg_decoder_open(jpeg, jpeg.count, shortSide, 100_000_000, &decoder, &header, &message)
        if status == CLS_OK, let crop { status = cls_jpeg_decoder_crop(decoder, crop, &header, &message) }
        var pixels: [UInt8] = []
        var ours = false
        if status == CLS_OK {
            if library { cls_jpeg_decoder_use_library_huffman(decoder) }
            if baseline { cls_jpeg_decoder_use_baseline_huffman(decoder) }
            pixels = [UInt8](repeating: 0, count: Int(header.output_width) * Int(header.output_height) * 3)
            status = cls_jpeg_decoder_read_pixels(decoder, &pixels, pixels.count, &message)
            ours = cls_jpeg_decoder_huffman_was_ours(decoder) != 0
        }
        cls_jpeg_decoder_close(decoder)
        let text = withUnsafeBytes(of: message.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Outcome(status: status, message: status == CLS_OK ? "" : text, pixels: status == CLS_OK ? pixels : [], ours: ours)
    }

    /// Ours (both loops) against libjpeg's alone on one decode: the same outcome, and ours took it.
    static func expectSameAsLibjpeg(
        _ jpeg: [UInt8], shortSide: UInt32 = 1, crop: cls_output_crop? = nil, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let ours = decode(jpeg, library: false, shortSide: shortSide, crop: crop)
        let baseline = decode(jpeg, library: false, baseline: true, shortSide: shortSide, crop: crop)
        let libjpeg = decode(jpeg, library: true, shortSide: shortSide, crop: crop)
        let decoded = ours.status == CLS_OK && libjpeg.status == CLS_OK
        let tookIt = ours.ours && baseline.ours, libjpegAlone = !libjpeg.ours
        let samePixels = ours.pixels == libjpeg.pixels && baseline.pixels == libjpeg.pixels
        #expect(decoded && tookIt && libjpegAlone, "\(label)", sourceLocation: sourceLocation)
        #expect(samePixels, "\(label)", sourceLocation: sourceLocation)
    }

    /// A photo's pixels cut to `width` x `height` (repeated when larger), with `components` channels.
    static func photoPixels(width: Int, height: Int, components: Int) throws -> [UInt8] {
        let photo = try ImageDecoder().decode(CorruptEntropyDataTests.photo("cat-chelsea.jpg"))
        var pixels = [UInt8](repeating: 0, count: width * height * components)
        for y in 0..<height {
            for x in 0..<width {
                let source = ((y % photo.height) * photo.width + (x % photo.width)) * 3
                for c in 0..<components {
                    pixels[(y * width + x) * components + c] = photo.pixels[source + min(c, 2)] &+ UInt8(c * 40)
                }
            }
        }
        return pixels
    }

    /// Every sampling, restart interval and kind of table, on a photo and on noise (whose blocks
    /// use long codes, long zero runs and every magnitude): the same pixels as libjpeg's decoder,
    /// and our decoder took every one of them.
    @Test func samePixelsAsLibjpegForEverySamplingRestartAndTable() throws {
        let samplings: [(h: Int, v: Int)] = [(1, 1), (2, 1), (2, 2), (1, 2)]
        var random = SeededRandom(seed: 29)
        for (width, height) in [(8, 8), (97, 61), (203, 150), (333, 517)] {
            let photo = try Self.photoPixels(width: width, height: height, components: 3)
            let noise = random.bytes(width * height * 3)
            for (name, pixels) in [("photo", photo), ("noise", noise)] {
                for sampling in samplings {
                    for restart in [0, 1, 7] {
                        for optimized in [false, true] {
                            let quality = optimized ? 97 : 60
                            let jpeg = try TestJPEG.encode(
                                pixels, width: width, height: height, quality: quality, lumaSampling: sampling,
                                restartInterval: restart, optimizedTables: optimized)
                            Self.expectSameAsLibjpeg(
                                jpeg, "\(name) \(width)x\(height) \(sampling) restart \(restart) optimized \(optimized)")
                        }
                    }
                }
            }
        }
    }

    /// At full size, 1/2 and 1/4 (where the IDCT reads AC coefficients of every block) as at 1/8.
    @Test func samePixelsAsLibjpegAtEveryScale() throws {
        let (width, height) = (333, 517)
        var random = SeededRandom(seed: 31)
        let photo = try Self.photoPixels(width: width, height: height, components: 3)
        let noise = random.bytes(width * height * 3)
        for (name, pixels) in [("photo", photo), ("noise", noise)] {
            for sampling in [(h: 1, v: 1), (h: 2, v: 2), (h: 2, v: 1)] {
                for restart in [0, 5] {
                    let jpeg = try TestJPEG.encode(
                        pixels, width: width, height: height, quality: 90, lumaSampling: sampling, restartInterval: restart,
                        optimizedTables: name == "noise")
                    // Short sides asked for: full size, then 1/2 (167), 1/4 (84) and 1/8 (42) of 333.
                    for shortSide: UInt32 in [0, 150, 80, 1] {
                        Self.expectSameAsLibjpeg(
                            jpeg, shortSide: shortSide, "\(name) \(sampling) restart \(restart) short side \(shortSide)")
                    }
                }
            }
        }
    }

    /// Cropped decodes (as describing faces asks for): rows above the rectangle skipped, columns
    /// outside it not transformed, at every scale, for rectangles at the edges, in the middle and
    /// one pixel wide; the pixels of the rectangle are libjpeg's.
    @Test func samePixelsAsLibjpegForCrops() throws {
        let (width, height) = (403, 299)
        let photo = try Self.photoPixels(width: width, height: height, components: 3)
        for sampling in [(h: 1, v: 1), (h: 2, v: 2), (h: 2, v: 1)] {
            for restart in [0, 3] {
                let jpeg = try TestJPEG.encode(
                    photo, width: width, height: height, quality: 90, lumaSampling: sampling, restartInterval: restart)
                for (shortSide, divisor) in [(UInt32(0), 1), (150, 2), (1, 8)] {
                    let (w, h) = (UInt32((width + divisor - 1) / divisor), UInt32((height + divisor - 1) / divisor))
                    let crops = [
                        cls_output_crop(x: 0, y: 0, width: w / 3, height: h / 4),
                        cls_output_crop(x: w / 3, y: h / 3, width: w / 4 + 1, height: h / 5 + 1),
                        cls_output_crop(x: w - w / 5, y: h - h / 3, width: w / 5, height: h / 3),
                        cls_output_crop(x: w / 2, y: h / 2, width: 1, height: 1),
                        cls_output_crop(x: 0, y: h / 2, width: w, height: 2),
                    ]
                    for crop in crops {
                        Self.expectSameAsLibjpeg(
                            jpeg, shortSide: shortSide, crop: crop,
                            "\(sampling) restart \(restart) 1/\(divisor) crop \(crop.x),\(crop.y) \(crop.width)x\(crop.height)")
                    }
                }
            }
        }
    }

    @Test(arguments: [1, 4])
    func samePixelsForGrayAndInk(components: Int) throws {
        let pixels = try Self.photoPixels(width: 121, height: 77, components: components)
        for restart in [0, 3] {
            let jpeg = try TestJPEG.encode(pixels, width: 121, height: 77, components: components, restartInterval: restart)
            let ours = Self.decode(jpeg, library: false)
            let decoded = ours.status == CLS_OK && ours.ours, samePixels = ours.pixels == Self.decode(jpeg, library: true).pixels
            #expect(decoded && samePixels, "\(components) components, restart \(restart)")
        }
    }

    /// Progressive files stay with libjpeg, at the same pixels.
    @Test func progressiveScansStayWithLibjpeg() throws {
        let pixels = try Self.photoPixels(width: 160, height: 96, components: 3)
        let jpeg = try TestJPEG.encode(pixels, width: 160, height: 96, scans: CLS_TEST_JPEG_PROGRESSIVE)
        let outcome = Self.decode(jpeg, library: false)
        let decodedByLibjpeg = outcome.status == CLS_OK && !outcome.ours
        let samePixels = outcome.pixels == Self.decode(jpeg, library: true).pixels
        #expect(decodedByLibjpeg && samePixels)
    }

    /// Damage of every kind (bytes overwritten, markers dropped in, cut short), with and without
    /// restart markers: the outcome (status, message, pixels) is exactly libjpeg's alone. Some
    /// damaged files our decoder reads to the end itself (valid codes, wrong picture: libjpeg cannot
    /// tell either), the others it leaves to libjpeg; both kinds occur.
    @Test func damagedDataEndsAsLibjpegAloneWouldEnd() throws {
        let pixels = try Self.photoPixels(width: 203, height: 150, components: 3)
        var decodedByUs = 0, leftToLibjpeg = 0
        for restart in [0, 2] {
            let jpeg = try TestJPEG.encode(pixels, width: 203, height: 150, quality: 90, restartInterval: restart)
            let sos = try #require((0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDA })
            let scan = sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
            for seed in 0..<60 as Range<UInt64> {
                var random = SeededRandom(seed: seed &* 7919 &+ UInt64(restart))
                var bytes = jpeg
                let at = Int.random(in: scan..<jpeg.count - 2, using: &random)
                switch seed % 4 {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes[at] ^= 1 << UInt8.random(in: 0...7, using: &random)
                case 2: bytes.insert(contentsOf: [0xFF, [0xD9, 0xD3, 0xC4, 0xFE].randomElement(using: &random)!], at: at)
                default: bytes.removeSubrange(at...)
                }
                // Every third file is decoded as describing a face would: full size, a rectangle.
                let crop = seed % 3 == 0 ? cls_output_crop(x: 61, y: 70, width: 80, height: 50) : nil
                let shortSide: UInt32 = crop == nil ? 1 : 0
                let ours = Self.decode(bytes, library: false, shortSide: shortSide, crop: crop)
                let baseline = Self.decode(bytes, library: false, baseline: true, shortSide: shortSide, crop: crop)
                let libjpeg = Self.decode(bytes, library: true, shortSide: shortSide, crop: crop)
                let sameEnd = ours.status == libjpeg.status && ours.message == libjpeg.message
                    && baseline.status == libjpeg.status && baseline.message == libjpeg.message
                let samePixels = ours.pixels == libjpeg.pixels && baseline.pixels == libjpeg.pixels
                #expect(sameEnd, "seed \(seed), restart \(restart): \(ours.message) / \(libjpeg.message)")
                #expect(samePixels, "seed \(seed), restart \(restart)")
                if ours.ours { decodedByUs += 1 } else { leftToLibjpeg += 1 }
            }
        }
        #expect(decodedByUs > 0 && leftToLibjpeg > 0, "\(decodedByUs) decoded by us, \(leftToLibjpeg) left to libjpeg")
    }
}
