import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Testing

@testable import Classify

@Suite("Concurrent decoding")
struct ConcurrentDecodingTests {
    /// Decoders share no state (libjpeg/libpng structs are per call, the 16-bit PNG table is
    /// built once under pthread_once), so parallel decodes must give the serial result.
    @Test func parallelDecodesMatchSerialOnes() async throws {
        let rgb = TestPictures.noise(count: 96 * 64 * 3, seed: 21)
        let files: [[UInt8]] = [
            try TestJPEG.encode(rgb, width: 96, height: 64, scans: CLS_TEST_JPEG_PROGRESSIVE),
            try TestPNG.encode(rgb.map { UInt16($0) * 257 }, width: 96, height: 64, color: CLS_TEST_PNG_RGB, bitDepth: 16, interlaced: true),
            try TestPNG.encode(rgb.map(UInt16.init), width: 96, height: 64, color: CLS_TEST_PNG_RGB),
        ]
        let decoder = ImageDecoder()
        let serial = try files.map { try decoder.decode($0) }
        let parallel = try await withThrowingTaskGroup(of: (Int, DecodedImage).self) { group in
            for _ in 0..<8 {
                for (index, file) in files.enumerated() {
                    group.addTask { (index, try decoder.decode(file)) }
                }
            }
            var results: [(Int, DecodedImage)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(parallel.count == 24)
        for (index, image) in parallel { #expect(image == serial[index]) }
        // The 16-bit samples are exactly 257 * the 8-bit ones, so both PNGs decode alike, up to
        // the 16-bit path's rounding through linear light (documented in cls_png_decoder.h).
        let differences = zip(serial[1].pixels, serial[2].pixels).filter { sixteen, eight in
            eight <= 3 ? sixteen > 3 : abs(Int(sixteen) - Int(eight)) > 1
        }
        #expect(differences.isEmpty, "\(differences.prefix(10))")
    }
}
