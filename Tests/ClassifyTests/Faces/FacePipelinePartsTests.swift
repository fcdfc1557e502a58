import ClassifyTestSupport
import Testing
@testable import Classify

/// The pipeline's own kernels and steps: area resampling against a direct rectangle mean,
/// non-maximum suppression in both overlap measures, the pyramid, and images too small to hold
/// a face.
struct FacePipelinePartsTests {
    /// The plain definition (the scalar reference of the summed-area table): output (i, j) is the mean of the source rectangle
    /// rows floor(i*h/oh) ..< ceil((i+1)*h/oh), columns likewise.
    static func referenceArea(_ pixels: [UInt8], stride: Int, x0: Int, y0: Int, width: Int, height: Int, outWidth: Int, outHeight: Int) -> [Float] {
        var result: [Float] = []
        for i in 0..<outHeight {
            let rows = (i * height / outHeight)..<(((i + 1) * height + outHeight - 1) / outHeight)
            for j in 0..<outWidth {
                let columns = (j * width / outWidth)..<(((j + 1) * width + outWidth - 1) / outWidth)
                for c in 0..<3 {
                    var sum = 0.0
                    for y in rows { for x in columns { sum += Double(pixels[((y0 + y) * stride + x0 + x) * 3 + c]) } }
                    result.append(Float((sum / Double(rows.count * columns.count) - 127.5) / 128))
                }
            }
        }
        return result
    }

    @Test(arguments: [
        (37, 29, 0, 0, 37, 29, 24, 24, UInt64(1)), (37, 29, 3, 5, 11, 7, 24, 24, 2), (100, 80, 10, 20, 61, 47, 48, 48, 3),
        (13, 13, 0, 0, 13, 13, 13, 13, 4), (50, 40, 0, 0, 50, 40, 36, 29, 5), (9, 7, 4, 2, 1, 1, 24, 24, 6), (64, 48, 0, 0, 64, 48, 45, 34, 7),
    ])
    func areaResamplingMatchesTheRectangleMean(shape: (w: Int, h: Int, x0: Int, y0: Int, cw: Int, ch: Int, ow: Int, oh: Int, seed: UInt64)) throws {
        var random = SeededRandom(seed: shape.seed)
        let pixels = random.bytes(shape.w * shape.h * 3)
        var output = [Float](repeating: .nan, count: shape.ow * shape.oh * 3)
        let resampling = pixels.withUnsafeBufferPointer { source in
            AreaResampling(source, width: shape.w, height: shape.h, mean: [127.5, 127.5, 127.5], std: [128, 128, 128])
        }
        output.withUnsafeMutableBufferPointer { out in
            resampling.resample(x0: shape.x0, y0: shape.y0, width: shape.cw, height: shape.ch, outWidth: shape.ow, outHeight: shape.oh, into: out.baseAddress!)
        }
        let expected = Self.referenceArea(pixels, stride: shape.w, x0: shape.x0, y0: shape.y0, width: shape.cw, height: shape.ch, outWidth: shape.ow, outHeight: shape.oh)
        #expect(maximumAbsoluteDifference(output, expected) < 1e-5)

        // Without the table (BlazeFace's single view, a C kernel): the same sums, so the same
        // floats, bit for bit, on every kernel path this CPU has.
        for path in KernelPath.allCases where path <= KernelPath.best {
            var direct = [Float](repeating: .nan, count: output.count)
            try KernelPaths.with(path) {
                pixels.withUnsafeBufferPointer { source in
                    direct.withUnsafeMutableBufferPointer { out in
                        AreaResampling.resample(source, width: shape.w, height: shape.h, mean: [127.5, 127.5, 127.5], std: [128, 128, 128],
                                                x0: shape.x0, y0: shape.y0, width: shape.cw, height: shape.ch, outWidth: shape.ow, outHeight: shape.oh,
                                                into: out.baseAddress!)
                    }
                }
            }
            #expect(direct == output, "\(path)")
        }
    }

    /// 32-bit channel sums hold windows of up to 2^32 / 255 = 16,843,009 pixels: a 10,000 x 10,000
    /// region fits resampled to 3 x 3 (windows of 3,335 x 3,335) and not to 2 x 2 or 1 x 1; what the
    /// callers ask stays far inside.
    @Test func resamplingWindowsFitThirtyTwoBitSums() {
        #expect(AreaResampling.windowsFit(width: 10_000, height: 10_000, outWidth: 3, outHeight: 3))
        #expect(!AreaResampling.windowsFit(width: 10_000, height: 10_000, outWidth: 2, outHeight: 2))
        #expect(!AreaResampling.windowsFit(width: 10_000, height: 10_000, outWidth: 1, outHeight: 1))
        #expect(AreaResampling.windowsFit(width: 10_000, height: 10_000, outWidth: 192, outHeight: 192))
        #expect(AreaResampling.windowsFit(width: 100_000_000, height: 1, outWidth: 192, outHeight: 1))
        #expect(AreaResampling.windowsFit(width: 10_000, height: 10_000, outWidth: 12, outHeight: 12))
    }

    @Test func nonMaximumSuppressionKeepsTheBestOfEachCluster() {
        let boxes: [(x1: Double, y1: Double, x2: Double, y2: Double, score: Double)] = [
            (0, 0, 10, 10, 0.8), (1, 1, 11, 11, 0.9), (50, 50, 60, 60, 0.7), (0, 0, 4, 4, 0.95),
        ]
        // IoU of box 0 and 1 = 81 / 119 = 0.68; box 3 inside box 0: IoU 0.16 but overlap of the smaller 1.
        #expect(NonMaximumSuppression.keep(boxes, threshold: 0.5, overlap: .union) == [3, 1, 2])
        #expect(NonMaximumSuppression.keep(boxes, threshold: 0.7, overlap: .union) == [3, 1, 0, 2])
        #expect(NonMaximumSuppression.keep(boxes, threshold: 0.7, overlap: .minimum) == [3, 1, 2])
        #expect(NonMaximumSuppression.keep([], threshold: 0.5, overlap: .union).isEmpty)
    }

    @Test func pyramidFollowsFacenet() {
        let pipeline = ShippedFaceModel.mtcnn.pipeline
        let scales = pipeline.scales(width: 168, height: 160)
        // 160 * 0.6 = 96 >= 12 ... while the short side stays >= 12: 0.6 * 0.709^k, k = 0...6
        #expect(scales.count == 7)
        #expect(abs(scales[0] - 0.6) < 1e-12 && abs(scales[6] - 0.6 * pow(0.709, 6)) < 1e-12)
        #expect(pipeline.scales(width: 19, height: 400).isEmpty)
        #expect(pipeline.scales(width: 20, height: 20).count == 1)
    }

    @Test(arguments: [(1, 1), (5, 5), (12, 12), (19, 300), (20, 20), (300, 21), (2, 4000)])
    func tinyAndThinImagesHaveNoFaceAndNoCrash(size: (width: Int, height: Int)) throws {
        var random = SeededRandom(seed: UInt64(size.width * 10_000 + size.height))
        let pixels = random.bytes(size.width * size.height * 3)
        let faces = try ShippedFaceModel.mtcnn.pipeline.detect(pixels: pixels, width: size.width, height: size.height)
        #expect(faces.allSatisfy { $0.score > 0.7 })
        let image = DecodedImage(width: size.width, height: size.height, pixels: pixels, format: .png)
        let result = try FaceDetector(model: ShippedFaceModel.model).detect(in: image)
        #expect(result.width == size.width && result.height == size.height)
    }
}

import Foundation
