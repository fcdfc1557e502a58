import Foundation
import Testing

@testable import Classify

@Suite("Preprocessing")
struct PreprocessorTests {
    static func randomImage(width: Int, height: Int, seed: UInt64) -> DecodedImage {
        DecodedImage(
            width: width, height: height, pixels: TestPictures.noise(count: width * height * 3, seed: seed), format: .png)
    }

    static func largestDifference(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    struct Size: Sendable, CustomTestStringConvertible {
        let width: Int, height: Int
        var testDescription: String { "\(width)x\(height)" }
    }

    @Test(arguments: [
        Size(width: 7, height: 13), Size(width: 127, height: 301), Size(width: 1000, height: 257),
        Size(width: 257, height: 1000), Size(width: 300, height: 300), Size(width: 1, height: 1),
        Size(width: 2, height: 3), Size(width: 256, height: 256), Size(width: 600, height: 451),
    ], [1, 2] as [UInt64])
    func fastPathMatchesTheReference(size: Size, seed: UInt64) {
        let image = Self.randomImage(width: size.width, height: size.height, seed: seed * 1000 + UInt64(size.width))
        var preprocessor = Preprocessor()
        let fast = preprocessor.preprocess(image)
        let reference = ReferencePreprocessing.tensor(pixels: image.pixels, width: size.width, height: size.height)
        #expect(fast.count == Preprocessor.outputCount)
        #expect(reference.count == Preprocessor.outputCount)
        #expect(Self.largestDifference(fast, reference) <= 1e-5)
    }

    @Test func scratchIsReusedAcrossSizes() {
        // Big, then small, then odd: stale scratch from a previous image must not leak in.
        var shared = Preprocessor()
        for (index, (width, height)) in [(900, 700), (20, 30), (333, 777)].enumerated() {
            let image = Self.randomImage(width: width, height: height, seed: UInt64(40 + index))
            var fresh = Preprocessor()
            #expect(shared.preprocess(image) == fresh.preprocess(image))
        }
    }

    @Test func resizedSizeKeepsTheAspectRatio() {
        #expect(Preprocessor.resizedSize(width: 1000, height: 500) == (512, 256))
        #expect(Preprocessor.resizedSize(width: 7, height: 13) == (256, 475))
        #expect(Preprocessor.resizedSize(width: 300, height: 300) == (256, 256))
        #expect(Preprocessor.resizedSize(width: 257, height: 1000) == (256, 996))
        #expect(Preprocessor.resizedSize(width: 3, height: 2) == (384, 256))
        #expect(Preprocessor.resizedSize(width: 2, height: 5) == (256, 640))
        // A 2-pixel-high strip: the long side grows by the same factor of 128.
        #expect(Preprocessor.resizedSize(width: 1001, height: 2) == (128_128, 256))
    }

    @Test func shortSide256IsJustACrop() {
        let image = Self.randomImage(width: 256, height: 300, seed: 8)
        var preprocessor = Preprocessor()
        let tensor = preprocessor.preprocess(image)
        // 256 -> 256 columns is the identity, 300 -> 300 rows too; the crop starts at (16, 38).
        let (x, y) = (10, 20)
        for channel in 0..<3 {
            let pixel = image.pixels[((y + 38) * 256 + x + 16) * 3 + channel]
            #expect(tensor[(y * 224 + x) * 3 + channel] == (Float(pixel) - 127) / 128)
        }
    }

    @Test func flatColourStaysFlatAndIsNormalised() {
        let image = DecodedImage(
            width: 500, height: 375, pixels: [UInt8]((0..<500 * 375).flatMap { _ in [255, 127, 0] as [UInt8] }),
            format: .jpeg)
        var preprocessor = Preprocessor()
        let tensor = preprocessor.preprocess(image)
        for index in stride(from: 0, to: tensor.count, by: 3) {
            guard abs(tensor[index] - 1) < 1e-5, abs(tensor[index + 1]) < 1e-5, abs(tensor[index + 2] + 127.0 / 128) < 1e-5
            else {
                Issue.record("pixel \(index / 3) is \(tensor[index..<index + 3])")
                return
            }
        }
    }

    @Test func writesIntoTheCallersBufferOnly() {
        let image = Self.randomImage(width: 640, height: 480, seed: 3)
        var buffer = [Float](repeating: .nan, count: Preprocessor.outputCount + 8)
        var preprocessor = Preprocessor()
        buffer.withUnsafeMutableBufferPointer { preprocessor.preprocess(image, into: $0) }
        #expect(buffer[..<Preprocessor.outputCount].allSatisfy { $0.isFinite && $0 >= -127.0 / 128 && $0 <= 1 })
        #expect(buffer[Preprocessor.outputCount...].allSatisfy { $0.isNaN })
    }
}

/// Opt-in timing (set CLASSIFY_BENCHMARK=1; meaningful with `swift test -c release`).
@Suite("Preprocessing speed", .enabled(if: ProcessInfo.processInfo.environment["CLASSIFY_BENCHMARK"] != nil))
struct PreprocessorBenchmark {
    @Test(arguments: [(1512, 1008), (2016, 1512)])
    func timeOneImage(width: Int, height: Int) {
        let image = PreprocessorTests.randomImage(width: width, height: height, seed: 1)
        var preprocessor = Preprocessor()
        var output = [Float](repeating: 0, count: Preprocessor.outputCount)
        let runs = 50
        let clock = ContinuousClock()
        output.withUnsafeMutableBufferPointer { preprocessor.preprocess(image, into: $0) }  // warm up scratch
        let elapsed = clock.measure {
            for _ in 0..<runs { output.withUnsafeMutableBufferPointer { preprocessor.preprocess(image, into: $0) } }
        }
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 / Double(runs)
            + Double(elapsed.components.seconds) * 1000 / Double(runs)
        print("preprocess \(width)x\(height): \(String(format: "%.2f", milliseconds)) ms per image")
        #expect(milliseconds < 1000)
    }
}
