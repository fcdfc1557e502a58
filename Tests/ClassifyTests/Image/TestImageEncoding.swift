import CClassifyCodecs
import ClassifyTestSupport
import Testing

@testable import Classify

/// Synthetic pictures and pixel accessors shared by the image tests.
enum TestPictures {
    typealias RGB = [UInt8]

    /// A width x height image whose four quadrants have the given colours (any channel count).
    static func quadrants(width: Int, height: Int, topLeft: [UInt8], topRight: [UInt8], bottomLeft: [UInt8], bottomRight: [UInt8]) -> [UInt8] {
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * topLeft.count)
        for y in 0..<height {
            for x in 0..<width {
                let top = y < height / 2, left = x < width / 2
                pixels += top ? (left ? topLeft : topRight) : (left ? bottomLeft : bottomRight)
            }
        }
        return pixels
    }

    /// Deterministic pseudo-random bytes (SplitMix64), so failures reproduce.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededRandom(seed: seed)
        return random.bytes(count)
    }

    static func pixel(_ image: DecodedImage, x: Int, y: Int) -> RGB {
        let offset = (y * image.width + x) * 3
        return Array(image.pixels[offset..<offset + 3])
    }

    /// True when every channel is within `tolerance` of `expected`.
    static func isClose(_ actual: RGB, _ expected: RGB, tolerance: Int) -> Bool {
        zip(actual, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    /// A minimal EXIF TIFF structure holding only IFD0 with the orientation tag.
    static func exif(orientation: UInt16, bigEndian: Bool) -> [UInt8] {
        TestEXIF.tiff(orientation: orientation, bigEndian: bigEndian)
    }

    /// The JPEG APP1 payload carrying `tiff`.
    static func jpegAPP1(_ tiff: [UInt8]) -> [UInt8] { TestEXIF.jpegAPP1(tiff) }
}

/// Runs `body` and returns the decoding error it threw, or nil if it succeeded.
/// (Closures do not infer typed throws yet, so this takes an untyped one and checks the type.)
func decodingError(_ body: () throws -> DecodedImage) -> ImageDecodingError? {
    do {
        _ = try body()
        return nil
    } catch let error as ImageDecodingError {
        return error
    } catch {
        Issue.record("expected an ImageDecodingError, got \(error)")
        return nil
    }
}
