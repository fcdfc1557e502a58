import CClassifyCodecs
import CClassifyTestEncoders
import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify

/// At 1/8 scale our own Huffman decoder reads the scan in libjpeg's place. It must hand libjpeg
/// exactly the coefficients libjpeg's decoder would (so every pixel is the same), and on damaged
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

    /// Decodes `jpeg` at 1/8 scale through the C decoder, with our Huffman decoder (its BMI2 loop
    /// where the CPU has one, or its baseline loop) or libjpeg's.
    static func decode(_ jpeg: [UInt8], library: Bool, baseline: Bool = false) -> Outcome {
        var decoder: OpaquePointer?
        var header = cls_jpeg_header()
        var message = cls_message()
        var status = cls_jpeg_decoder_open(jpeg, jpeg.count, 1, 100_000_000, &decoder, &header, &message)
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
                            let ours = Self.decode(jpeg, library: false)
                            let baseline = Self.decode(jpeg, library: false, baseline: true)
                            let libjpeg = Self.decode(jpeg, library: true)
                            let label = "\(name) \(width)x\(height) \(sampling) restart \(restart) optimized \(optimized)"
                            let decoded = ours.status == CLS_OK, tookIt = ours.ours && baseline.ours, libjpegAlone = !libjpeg.ours
                            let samePixels = ours.pixels == libjpeg.pixels && baseline.pixels == libjpeg.pixels
                            #expect(decoded && tookIt && libjpegAlone, "\(label)")
                            #expect(samePixels, "\(label)")
                        }
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
                let ours = Self.decode(bytes, library: false)
                let baseline = Self.decode(bytes, library: false, baseline: true)
                let libjpeg = Self.decode(bytes, library: true)
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
