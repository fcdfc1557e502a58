import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Testing

@testable import Classify

@Suite("Malformed and hostile images")
struct MalformedImageTests {
    let decoder = ImageDecoder()

    /// A noisy picture, so the entropy-coded data is long enough to cut and damage.
    static func noisyJPEG(scans: cls_test_jpeg_scans = CLS_TEST_JPEG_BASELINE) throws -> [UInt8] {
        try TestJPEG.encode(TestPictures.noise(count: 64 * 64 * 3, seed: 3), width: 64, height: 64, quality: 90, scans: scans)
    }

    /// Offset of the first marker `code` (the 0xFF byte) in a JPEG; test files have no padding.
    static func markerOffset(_ code: UInt8, in jpeg: [UInt8]) -> Int? {
        (0..<jpeg.count - 1).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == code }
    }

    /// First byte of entropy-coded data after the first SOS segment.
    static func scanDataStart(in jpeg: [UInt8]) throws -> Int {
        let sos = try #require(markerOffset(0xDA, in: jpeg))
        return sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
    }

    static func isTruncated(_ error: ImageDecodingError?) -> Bool {
        if case .truncated = error { true } else { false }
    }

    static func corruptDetail(_ error: ImageDecodingError?) -> String? {
        if case .corrupt(let detail) = error { detail } else { nil }
    }

    // MARK: JPEG

    @Test func jpegCutInsideTheHeaderIsTruncated() throws {
        let jpeg = try Self.noisyJPEG()
        let cut = Array(jpeg[0..<30])  // inside the quantisation tables
        let error = decodingError { try decoder.decode(cut) }
        #expect(error == .truncated("Premature end of JPEG file"))
        #expect(error?.stage == "decode")
    }

    @Test(arguments: [CLS_TEST_JPEG_BASELINE, CLS_TEST_JPEG_PROGRESSIVE])
    func jpegCutAtTheFirstScanIsTruncated(scans: cls_test_jpeg_scans) throws {
        let jpeg = try Self.noisyJPEG(scans: scans)
        let cut = try Array(jpeg[0..<Self.scanDataStart(in: jpeg) + 4])
        #expect(decodingError { try decoder.decode(cut) } == .truncated("Premature end of JPEG file"))
    }

    @Test(arguments: [CLS_TEST_JPEG_BASELINE, CLS_TEST_JPEG_PROGRESSIVE])
    func jpegCutMidScanIsTruncated(scans: cls_test_jpeg_scans) throws {
        let jpeg = try Self.noisyJPEG(scans: scans)
        let start = try Self.scanDataStart(in: jpeg)
        let cut = Array(jpeg[0..<(start + jpeg.count) / 2])
        #expect(decodingError { try decoder.decode(cut, minimumShortSide: 8) } == .truncated("Premature end of JPEG file"))
    }

    @Test func jpegWithoutTheFinalMarkerIsTruncated() throws {
        let jpeg = try Self.noisyJPEG()
        #expect(decodingError { try decoder.decode(Array(jpeg.dropLast(2))) } == .truncated("Premature end of JPEG file"))
    }

    @Test func jpegWithInvalidHuffmanCodesIsCorrupt() throws {
        var jpeg = try Self.noisyJPEG()
        let start = try Self.scanDataStart(in: jpeg)
        // 0xFF 0x00 is a stuffed 0xFF: a run of one-bits, which no Huffman table may contain as a code.
        let middle = (start + jpeg.count) / 2 & ~1
        for offset in stride(from: middle, to: middle + 64, by: 2) {
            jpeg[offset] = 0xFF
            jpeg[offset + 1] = 0x00
        }
        #expect(decodingError { try decoder.decode(jpeg) } == .corrupt("Corrupt JPEG data: bad Huffman code"))
    }

    @Test func jpegHeaderClaimingTheMaximumDimensionsIsTooLarge() throws {
        var jpeg = try Self.noisyJPEG()
        let sof = try #require(Self.markerOffset(0xC0, in: jpeg))
        // SOF0: FF C0, length (2), precision (1), height (2), width (2).
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let error = decodingError { try decoder.decode(jpeg) }
        #expect(error == .tooLarge(width: 65535, height: 65535, limit: 100_000_000))
        #expect(error?.description.contains("65535x65535") == true)
    }

    @Test func jpegHeaderOverThePixelLimitIsRejectedBeforeDecoding() throws {
        var jpeg = try Self.noisyJPEG()
        let sof = try #require(Self.markerOffset(0xC0, in: jpeg))
        jpeg.replaceSubrange(sof + 5..<sof + 9, with: [0x4E, 0x20, 0x4E, 0x20])  // 20000 x 20000
        #expect(decodingError { try decoder.decode(jpeg) } == .tooLarge(width: 20000, height: 20000, limit: 100_000_000))
    }

    @Test func pixelLimitIsConfigurable() throws {
        var small = ImageDecoder()
        small.maximumPixelCount = 1000
        let jpeg = try TestJPEG.encode([UInt8](repeating: 9, count: 64 * 32 * 3), width: 64, height: 32)
        let png = try TestPNG.encode([UInt16](repeating: 9, count: 64 * 32 * 3), width: 64, height: 32, color: CLS_TEST_PNG_RGB)
        #expect(decodingError { try small.decode(jpeg) } == .tooLarge(width: 64, height: 32, limit: 1000))
        #expect(decodingError { try small.decode(png) } == .tooLarge(width: 64, height: 32, limit: 1000))
        small.maximumPixelCount = 64 * 32
        #expect(try small.decode(jpeg).width == 64)
    }

    // A hang guard only (see ImageFileReadingTests): the clock includes waiting for a thread.
    @Test(.timeLimit(.minutes(15)))
    func jpegWithThousandsOfScansIsRejected() throws {
        let rgb = TestPictures.noise(count: 16 * 16 * 3, seed: 5)
        let jpeg = try TestJPEG.encode(rgb, width: 16, height: 16, scans: CLS_TEST_JPEG_EXCESSIVE_SCANS)
        #expect(decodingError { try decoder.decode(jpeg) } == .corrupt("JPEG has more than 1000 scans"))
    }

    @Test func jpegStartOfImageFollowedByGarbageRunsOutOfData() {
        // libjpeg skips bytes that are not markers while it looks for the frame header.
        let bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0x01] + TestPictures.noise(count: 200, seed: 11)
        #expect(decodingError { try decoder.decode(bytes) } == .truncated("Premature end of JPEG file"))
    }

    // MARK: PNG

    static func noisyPNG() throws -> [UInt8] {
        let samples = TestPictures.noise(count: 32 * 32 * 3, seed: 9).map(UInt16.init)
        return try TestPNG.encode(samples, width: 32, height: 32, color: CLS_TEST_PNG_RGB)
    }

    @Test func pngWithABadIDATChecksumIsCorrupt() throws {
        var png = try Self.noisyPNG()
        let idat = try #require(TestPNG.chunkOffset("IDAT", in: png))
        let length = png[idat..<idat + 4].reduce(0) { $0 << 8 | Int($1) }
        png[idat + 8 + length] ^= 0x55  // the stored CRC no longer matches the (intact) data
        let detail = Self.corruptDetail(decodingError { try decoder.decode(png) })
        #expect(detail?.contains("CRC") == true, "got \(String(describing: detail))")
    }

    @Test func pngWithDamagedCompressedDataIsCorrupt() throws {
        var png = try Self.noisyPNG()
        let idat = try #require(TestPNG.chunkOffset("IDAT", in: png))
        // zlib notices before libpng reaches the chunk's CRC, so the detail comes from zlib.
        png[idat + 8 + 10] ^= 0x55
        #expect(Self.corruptDetail(decodingError { try decoder.decode(png) }) != nil)
    }

    @Test func pngWithABadHeaderChecksumIsCorrupt() throws {
        var png = try Self.noisyPNG()
        png[29] ^= 0x01  // last CRC byte of IHDR
        let detail = Self.corruptDetail(decodingError { try decoder.decode(png) })
        #expect(detail?.contains("CRC") == true, "got \(String(describing: detail))")
    }

    @Test func pngCutInsideIDATIsTruncated() throws {
        let png = try Self.noisyPNG()
        let idat = try #require(TestPNG.chunkOffset("IDAT", in: png))
        let cut = Array(png[0..<idat + 8 + 100])
        #expect(Self.isTruncated(decodingError { try decoder.decode(cut) }))
    }

    @Test func pngCutInsideTheHeaderIsTruncated() throws {
        let png = try Self.noisyPNG()
        #expect(Self.isTruncated(decodingError { try decoder.decode(Array(png[0..<20])) }))
    }

    @Test func pngHeaderClaimingAHugeImageIsTooLarge() throws {
        var png = try Self.noisyPNG()
        // IHDR data starts at 16: width (4), height (4); fix the CRC so only the size is odd.
        png.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])  // 100000
        TestPNG.fixCRC(ofChunkAt: 8, in: &png)
        #expect(decodingError { try decoder.decode(png) } == .tooLarge(width: 100_000, height: 100_000, limit: 100_000_000))
    }

    @Test func pngWithGarbageAfterTheSignatureIsCorrupt() {
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + TestPictures.noise(count: 100, seed: 4)
        #expect(Self.corruptDetail(decodingError { try decoder.decode(bytes) }) != nil)
    }

    @Test func errorDescriptionsAreActionableSentences() {
        let errors: [ImageDecodingError] = [
            .notRegularFile, .unreadable("Permission denied"), .empty, .fileTooLarge(byteCount: 10, limit: 5),
            .unrecognizedFormat, .truncated("x"), .corrupt("x"), .tooLarge(width: 1, height: 2, limit: 1),
            .unsupported("x"),
        ]
        for error in errors {
            #expect(error.description.first?.isUppercase == true && error.description.hasSuffix("."))
        }
        #expect(errors.map(\.stage) == ["read", "read", "read", "read", "decode", "decode", "decode", "decode", "decode"])
    }
}
