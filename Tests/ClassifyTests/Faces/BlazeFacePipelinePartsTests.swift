import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// The plain-Swift steps around the BlazeFace network: anchors, letterbox geometry, decoding,
/// weighted non-maximum suppression, and odd images.
struct BlazeFacePipelinePartsTests {
    @Test func fullRangeAnchorsAreA48By48Grid() {
        let anchors = SSDAnchor.anchors(.blazeFaceFullRange)
        #expect(anchors.count == 2304)
        #expect(anchors[0] == SSDAnchor(centerX: 0.5 / 48, centerY: 0.5 / 48, width: 1, height: 1))
        #expect(anchors[1].centerX == 1.5 / 48 && anchors[1].centerY == 0.5 / 48, "row-major: x varies first")
        #expect(anchors[48].centerX == 0.5 / 48 && anchors[48].centerY == 1.5 / 48)
        #expect(anchors[2303] == SSDAnchor(centerX: 47.5 / 48, centerY: 47.5 / 48, width: 1, height: 1))
    }

    /// The short-range model's layout (face_detection_short_range.pbtxt: 128 x 128, strides 8,
    /// 16, 16, 16, interpolated scale aspect ratio 1) has its well-known 896 anchors: 16 x 16 x 2
    /// from the stride-8 layer, then 8 x 8 x 6 from the three stride-16 layers merged.
    @Test func shortRangeLayoutGivesItsKnownAnchorCount() {
        var options = SSDAnchorOptions.blazeFaceFullRange
        options.inputWidth = 128; options.inputHeight = 128
        options.strides = [8, 16, 16, 16]
        options.interpolatedScaleAspectRatio = 1
        let anchors = SSDAnchor.anchors(options)
        #expect(anchors.count == 896)
        #expect(anchors[0] == anchors[1] && anchors[2].centerX == 1.5 / 16)
        #expect(anchors[512].centerX == 0.5 / 8 && (512..<518).allSatisfy { anchors[$0] == anchors[512] })
        options.fixedAnchorSize = false
        let sized = SSDAnchor.anchors(options)
        // Layer 0 of 4: scale 0.1484375, then the interpolated sqrt(scale * next scale).
        #expect(abs(sized[0].width - 0.1484375) < 1e-12)
        let next = 0.1484375 + (0.75 - 0.1484375) / 3
        #expect(abs(sized[1].width - (0.1484375 * next).squareRoot()) < 1e-12)
    }

    @Test func letterboxKeepsTheAspectRatioCentered() {
        let wide = Letterbox(imageWidth: 640, imageHeight: 480, side: 192)
        #expect((wide.contentWidth, wide.contentHeight, wide.left, wide.top) == (192, 144, 0, 24))
        let tall = Letterbox(imageWidth: 480, imageHeight: 640, side: 192)
        #expect((tall.contentWidth, tall.contentHeight, tall.left, tall.top) == (144, 192, 24, 0))
        // 168 x 160: 192 * 160 / 168 = 182.86 -> 183, placed at (0, 4).
        let astronaut = Letterbox(imageWidth: 168, imageHeight: 160, side: 192)
        #expect((astronaut.contentWidth, astronaut.contentHeight, astronaut.left, astronaut.top) == (192, 183, 0, 4))
        let sliver = Letterbox(imageWidth: 1, imageHeight: 5000, side: 192)
        #expect((sliver.contentWidth, sliver.contentHeight, sliver.left) == (1, 192, 95))
        // The content's corners map to the image's corners.
        let topLeft = wide.imagePoint(x: 0, y: 24.0 / 192), bottomRight = wide.imagePoint(x: 1, y: 168.0 / 192)
        #expect(abs(topLeft.x) < 1e-9 && abs(topLeft.y) < 1e-9)
        #expect(abs(bottomRight.x - 640) < 1e-9 && abs(bottomRight.y - 480) < 1e-9)
    }

    /// An input shaped like the photo (the enlarged look): the limiting side is filled, the other
    /// rounded half up and centered, and points map back to the image's corners.
    @Test func letterboxIntoARectangularInput() {
        // 4000 x 3000 into 480 x 352: the height limits (4000 / 3000 > 480 / 352 is false);
        // 352 * 4000 / 3000 = 469.33 -> 469, at (5, 0).
        let box = Letterbox(imageWidth: 4000, imageHeight: 3000, inputWidth: 480, inputHeight: 352)
        #expect((box.contentWidth, box.contentHeight, box.left, box.top) == (469, 352, 5, 0))
        let topLeft = box.imagePoint(x: 5.0 / 480, y: 0), bottomRight = box.imagePoint(x: 474.0 / 480, y: 1)
        #expect(abs(topLeft.x) < 1e-9 && abs(topLeft.y) < 1e-9)
        #expect(abs(bottomRight.x - 4000) < 1e-9 && abs(bottomRight.y - 3000) < 1e-9)
        // A wider image than the input: the width limits.
        let wide = Letterbox(imageWidth: 1000, imageHeight: 300, inputWidth: 480, inputHeight: 352)
        #expect((wide.contentWidth, wide.contentHeight, wide.left, wide.top) == (480, 144, 0, 104))
        // The square initializer is the same geometry.
        #expect(Letterbox(imageWidth: 640, imageHeight: 480, side: 192) == Letterbox(imageWidth: 640, imageHeight: 480, inputWidth: 192, inputHeight: 192))
    }

    /// The border is the normalized pixel 0 and the content lands at its offset.
    @Test func letterboxFillsBorderAndContent() {
        let pixels = [UInt8](repeating: 255, count: 4 * 2 * 3)  // 4 x 2 white
        let box = Letterbox(imageWidth: 4, imageHeight: 2, side: 8)  // content 8 x 4 at (0, 2)
        var input = [Float](repeating: .nan, count: 8 * 8 * 3)
        pixels.withUnsafeBufferPointer { pixels in
            let resampling = AreaResampling(pixels, width: 4, height: 2, mean: [127.5, 127.5, 127.5], std: [127.5, 127.5, 127.5])
            input.withUnsafeMutableBufferPointer { box.fill(from: resampling, border: (-1, -1, -1), into: $0.baseAddress!) }
        }
        for y in 0..<8 {
            let expected: Float = (2..<6).contains(y) ? 1 : -1
            #expect((0..<(8 * 3)).allSatisfy { input[y * 24 + $0] == expected }, "row \(y)")
        }
    }

    /// A whole image letterboxed without the summed-area table gets the same input, bit for bit,
    /// in both orientations and at sizes the network input does not divide, on every kernel path.
    @Test(arguments: [(640, 480, UInt64(1)), (333, 517, 2), (191, 7, 3), (1, 1, 4), (500, 375, 5), (2000, 9, 6)], KernelPath.allCases)
    func letterboxWithoutTableMatchesTheTable(image: (width: Int, height: Int, seed: UInt64), path: KernelPath) throws {
        var random = SeededRandom(seed: image.seed)
        let pixels = random.bytes(image.width * image.height * 3)
        let box = Letterbox(imageWidth: image.width, imageHeight: image.height, side: 192)
        let mean: [Float] = [127.5, 127.5, 127.5], std: [Float] = [127.5, 127.5, 127.5]
        var viaTable = [Float](repeating: .nan, count: 192 * 192 * 3), direct = viaTable
        try pixels.withUnsafeBufferPointer { pixels in
            let resampling = AreaResampling(pixels, width: image.width, height: image.height, mean: mean, std: std)
            viaTable.withUnsafeMutableBufferPointer { box.fill(from: resampling, border: (-1, -1, -1), into: $0.baseAddress!) }
            try KernelPaths.with(path) {
                direct.withUnsafeMutableBufferPointer { box.fill(from: pixels, mean: mean, std: std, border: (-1, -1, -1), into: $0.baseAddress!) }
            }
        }
        #expect(direct == viaTable)
    }

    /// One anchor, by hand: offsets in 1/192 of the input from the anchor center, sigmoid of the
    /// clipped logit, negative sizes and NaN dropped.
    @Test func decodingFollowsMediaPipe() {
        let anchor = SSDAnchor(centerX: 0.5, centerY: 0.25, width: 1, height: 1)
        let decoding = FaceDetectionDecoding(anchors: [anchor, anchor, anchor, anchor])
        var boxes = [Float](repeating: 0, count: 4 * 16)
        boxes[0] = 19.2; boxes[1] = -9.6; boxes[2] = 38.4; boxes[3] = 19.2  // center +0.1, -0.05; size 0.2 x 0.1
        boxes[4] = 9.6; boxes[5] = 0                                         // first keypoint at +0.05, 0
        boxes[16 + 2] = -1                                                    // anchor 1: negative width
        let logits: [Float] = [1000, 0.1, .nan, -3]
        let candidates = boxes.withUnsafeBufferPointer { b in logits.withUnsafeBufferPointer { decoding.candidates(boxes: b, logits: $0) } }
        #expect(candidates.count == 1)
        let face = candidates[0]
        #expect(face.score == 1 / (1 + exp(-100.0)), "the logit is clipped to 100")
        #expect(abs(face.xMin - 0.5) < 1e-6 && abs(face.xMax - 0.7) < 1e-6)
        #expect(abs(face.yMin - 0.15) < 1e-6 && abs(face.yMax - 0.25) < 1e-6)
        #expect(abs(face.keypoints[0] - 0.55) < 1e-6 && abs(face.keypoints[1] - 0.25) < 1e-6 && face.keypoints.count == 12)
    }

    /// On a non-square input x offsets are in 1/width and y offsets in 1/height of the input.
    @Test func decodingScalesEachAxisByItsSide() {
        let anchor = SSDAnchor(centerX: 0.5, centerY: 0.5, width: 1, height: 1)
        let decoding = FaceDetectionDecoding(anchors: [anchor], scaleX: 480, scaleY: 352)
        var boxes = [Float](repeating: 0, count: 16)
        boxes[0] = 48; boxes[1] = 35.2; boxes[2] = 96; boxes[3] = 70.4  // center +0.1, +0.1; size 0.2 x 0.2
        boxes[4] = -48; boxes[5] = 17.6                                   // first keypoint at -0.1, +0.05
        let face = boxes.withUnsafeBufferPointer { b in [Float(10)].withUnsafeBufferPointer { decoding.candidates(boxes: b, logits: $0) } }[0]
        #expect(abs(face.xMin - 0.5) < 1e-6 && abs(face.xMax - 0.7) < 1e-6)
        #expect(abs(face.yMin - 0.5) < 1e-6 && abs(face.yMax - 0.7) < 1e-6)
        #expect(abs(face.keypoints[0] - 0.4) < 1e-6 && abs(face.keypoints[1] - 0.55) < 1e-6)
    }

    static func candidate(_ x: Double, _ score: Double, size: Double = 0.2) -> FaceCandidate {
        FaceCandidate(xMin: x, yMin: 0.1, xMax: x + size, yMax: 0.1 + size, keypoints: [x, 0.1], score: score)
    }

    @Test func weightedSuppressionAveragesOverlapsByScore() {
        // 0.1 and 0.12 overlap (IoU 0.82); 0.6 is apart.
        let faces = WeightedNonMaximumSuppression.merge([Self.candidate(0.12, 0.6), Self.candidate(0.6, 0.7), Self.candidate(0.1, 0.9)])
        #expect(faces.count == 2)
        #expect(faces[0].score == 0.9 && faces[1].score == 0.7, "highest first, the best candidate's score")
        let xMin = (0.1 * 0.9 + 0.12 * 0.6) / 1.5
        #expect(abs(faces[0].xMin - xMin) < 1e-12 && abs(faces[0].keypoints[0] - xMin) < 1e-12)
        #expect(abs(faces[0].yMin - 0.1) < 1e-12 && faces[1] == Self.candidate(0.6, 0.7))
        // Side 0.2 boxes 0.1 apart overlap by IoU 1/3 > 0.3 and merge; 0.15 apart by 1/7 and stay.
        #expect(WeightedNonMaximumSuppression.merge([Self.candidate(0.1, 0.9), Self.candidate(0.2, 0.8)]).count == 1)
        #expect(WeightedNonMaximumSuppression.merge([Self.candidate(0.1, 0.9), Self.candidate(0.25, 0.8)]).count == 2)
    }

    /// A zero-area box overlaps nothing, not even itself: it is kept alone, and the rest go on
    /// (MediaPipe would stop there and drop them).
    @Test func degenerateBoxDoesNotStopSuppression() {
        let point = FaceCandidate(xMin: 0.5, yMin: 0.5, xMax: 0.5, yMax: 0.5, keypoints: [], score: 0.95)
        let faces = WeightedNonMaximumSuppression.merge([point, Self.candidate(0.1, 0.9), Self.candidate(0.11, 0.8)])
        #expect(faces.count == 2 && faces[0] == point && faces[1].score == 0.9)
    }

    /// Tiny, empty, one-pixel and extreme-aspect images give an answer, not a crash.
    @Test(arguments: [(1, 1), (1, 3000), (3000, 1), (2, 2), (7, 5)])
    func oddImagesDoNotCrash(size: (width: Int, height: Int)) throws {
        let pixels = [UInt8](repeating: 90, count: size.width * size.height * 3)
        let faces = try pixels.withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
            try ShippedBlazeFace.pipeline.detect(pixels: pixels, width: size.width, height: size.height)
        }
        #expect(faces.allSatisfy { $0.score >= 0.5 && $0.score <= 1 })
        let empty = try [UInt8]().withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
            try ShippedBlazeFace.pipeline.detect(pixels: pixels, width: 0, height: 0)
        }
        #expect(empty.isEmpty)
    }
}
