import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// The converted BlazeFace network and the Swift pipeline against MediaPipe's original .tflite
/// run by TFLite (Scripts/make-blazeface-golden): raw outputs within 1e-4 on LCG inputs and on
/// letterboxed photos, on every kernel path; on the photos the same faces, boxes with IoU >= 0.95,
/// scores within 1e-3 and keypoints within 1 px.
struct BlazeFaceGoldenTests {
    struct Golden: Decodable {
        struct Raw: Decodable {
            struct Anchor: Decodable { var anchor: Int; var score: Float; var box: [Float] }
            var boxIndices: [Int], boxValues: [Float], scoreIndices: [Int], scoreValues: [Float], topAnchors: [Anchor]
        }
        struct Network: Decodable {
            var seed: UInt32
            var raw: Raw
            init(from decoder: any Decoder) throws {
                seed = try decoder.container(keyedBy: Key.self).decode(UInt32.self, forKey: Key(stringValue: "seed")!)
                raw = try Raw(from: decoder)
            }
        }
        struct Photo: Decodable {
            struct Face: Decodable { var box: [Double]; var confidence: Double; var keypoints: [Double] }
            var file: String, width: Int, height: Int, faces: [Face]
            var raw: Raw
            private enum CodingKeys: String, CodingKey { case file, width, height, faces }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                file = try container.decode(String.self, forKey: .file)
                width = try container.decode(Int.self, forKey: .width)
                height = try container.decode(Int.self, forKey: .height)
                faces = try container.decode([Face].self, forKey: .faces)
                raw = try Raw(from: decoder)
            }
        }
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        var networks: [Network]
        var photos: [Photo]
    }

    static let golden: Golden = {
        let url = Bundle.module.url(forResource: "golden-blazeface", withExtension: "json", subdirectory: "Fixtures/faces")!
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    /// Every sampled raw value and every value of the top anchors within 1e-4 (the largest
    /// differences are reported, to read the margin).
    static func compare(boxes: [Float], logits: [Float], with raw: Golden.Raw) {
        #expect(boxes.count == 2304 * 16 && logits.count == 2304)
        guard boxes.count == 2304 * 16, logits.count == 2304 else { return }
        var worst: Float = 0
        for (index, value) in zip(raw.boxIndices, raw.boxValues) { worst = max(worst, abs(boxes[index] - value)) }
        for (index, value) in zip(raw.scoreIndices, raw.scoreValues) { worst = max(worst, abs(logits[index] - value)) }
        for top in raw.topAnchors {
            worst = max(worst, abs(logits[top.anchor] - top.score))
            worst = max(worst, maximumAbsoluteDifference(Array(boxes[(top.anchor * 16)..<(top.anchor * 16 + 16)]), top.box))
        }
        #expect(worst < 1e-4, "largest raw difference \(worst)")
        #expect(raw.boxIndices.count > 30 && raw.scoreIndices.count > 60 && raw.topAnchors.count == 4)
    }

    @Test func fixtureCoversNetworksAndFaces() {
        #expect(Self.golden.networks.count == 2)
        #expect(Self.golden.photos.map(\.file) == ["astronaut.png", "camera.png", "group.png"])
        #expect(Self.golden.photos.allSatisfy { !$0.faces.isEmpty })
        #expect(Self.golden.photos.last?.faces.count == 2, "the group photo has two faces")
    }

    @Test(arguments: [UInt32(11), 12], KernelPaths.withThreads)
    func networkOutputsMatchTFLite(seed: UInt32, path: (kernels: KernelPath, threads: Int)) throws {
        let golden = try #require(Self.golden.networks.first { $0.seed == seed })
        let network = ShippedBlazeFace.pipeline.network
        let input = goldenInput(seed: seed, count: 192 * 192 * 3)
        var outputs: [String: [Float]] = [:]
        try KernelPaths.with(path.kernels, threads: path.threads) {
            outputs = try network.run(height: 192, width: 192) { _ = $0.update(fromContentsOf: input) }
        }
        Self.compare(boxes: outputs["boxes"] ?? [], logits: outputs["scores"] ?? [], with: golden.raw)
    }

    static func photo(_ file: String) throws -> DecodedImage {
        let url = try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/faces"))
        return try ImageDecoder().decode(contentsOf: url)
    }

    @Test(arguments: ["astronaut.png", "camera.png", "group.png"])
    func letterboxedPhotoOutputsMatchTFLite(file: String) throws {
        let golden = try #require(Self.golden.photos.first { $0.file == file })
        let image = try Self.photo(file)
        #expect(image.width == golden.width && image.height == golden.height)
        let raw = try image.pixels.withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
            try ShippedBlazeFace.pipeline.rawOutputs(pixels, width: image.width, height: image.height)
        }
        Self.compare(boxes: raw.boxes, logits: raw.logits, with: golden.raw)
    }

    @Test(arguments: ["astronaut.png", "camera.png", "group.png"])
    func pipelineFindsTheReferenceFaces(file: String) throws {
        let golden = try #require(Self.golden.photos.first { $0.file == file })
        let image = try Self.photo(file)
        let faces = try image.pixels.withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
            try ShippedBlazeFace.pipeline.detect(pixels: pixels, width: image.width, height: image.height)
        }
        #expect(faces.count == golden.faces.count)
        for expected in golden.faces {
            let box = FaceCandidate(
                xMin: expected.box[0], yMin: expected.box[1], xMax: expected.box[0] + expected.box[2], yMax: expected.box[1] + expected.box[3],
                keypoints: expected.keypoints, score: expected.confidence)
            let match = try #require(faces.max { $0.intersectionOverUnion(box) < $1.intersectionOverUnion(box) })
            let iou = match.intersectionOverUnion(box)
            #expect(iou >= 0.95, "IoU \(iou)")
            #expect(abs(match.score - expected.confidence) < 1e-3, "score \(match.score) vs \(expected.confidence)")
            #expect(match.keypoints.count == 12)
            for (a, b) in zip(match.keypoints, expected.keypoints) { #expect(abs(a - b) <= 1) }
        }
    }

    /// The network run fully convolutionally on an input twice as large, shaped like the photo
    /// (the enlarged look alone, without the 192 x 192 view), finds the reference's faces in the
    /// same places: the `scale` upsamplings, the anchors over the larger grid and the per-axis
    /// decoding agree with TFLite's 192 x 192 run. Not to the pixel: the network sees each face at
    /// twice the size and regresses its box a little differently (the group photo's faces come
    /// out 35 px wide instead of 30, at scores 0.83-0.90 instead of 0.64-0.79), so centers are
    /// held to a fifth of the face's width, sizes to 0.8-1.3 times, keypoints to a quarter.
    @Test(arguments: ["astronaut.png", "camera.png", "group.png"])
    func enlargedInputFindsTheReferenceFaces(file: String) throws {
        let golden = try #require(Self.golden.photos.first { $0.file == file })
        let image = try Self.photo(file)
        let views = BlazeFaceViews.enlarged(shortSide: 384)
        let enlarged = try #require(views.rectangles(width: image.width, height: image.height).last)
        #expect(enlarged.isEnlarged)
        let faces = try image.pixels.withUnsafeBufferPointer { pixels throws(ModelLoadingError) in
            try ShippedBlazeFace.pipeline.detect(pixels: pixels, width: image.width, height: image.height, views: views, rectangles: [enlarged])
        }
        #expect(faces.count == golden.faces.count)
        for expected in golden.faces {
            let side = expected.box[2], centerX = expected.box[0] + side / 2, centerY = expected.box[1] + expected.box[3] / 2
            let match = try #require(faces.min { abs($0.xMin + $0.width / 2 - centerX) < abs($1.xMin + $1.width / 2 - centerX) })
            #expect(abs(match.xMin + match.width / 2 - centerX) <= 0.2 * side && abs(match.yMin + match.height / 2 - centerY) <= 0.2 * side,
                    "\(match) vs \(expected.box)")
            #expect(match.width >= 0.8 * side && match.width <= 1.3 * side, "width \(match.width) vs \(side)")
            #expect(match.score >= 0.5)
            for (a, b) in zip(match.keypoints, expected.keypoints) { #expect(abs(a - b) <= 0.25 * side) }
        }
    }

    /// Through `FaceDetector`: the group photo's two faces as observations, the eyes above the
    /// mouth, the left eye and ear on the image's left, all six landmarks and no mouth corners.
    @Test func detectorReportsBlazeFaceObservations() throws {
        let detector = FaceDetector(model: ShippedBlazeFace.model)
        #expect(detector.minimumConfidence == FaceDetector.defaultMinimumConfidence(for: .blazeFace))
        let result = try detector.detect(in: try Self.photo("group.png"))
        #expect(result.faces.count == 2)
        for face in result.faces {
            let landmarks = face.pixelLandmarks
            #expect(landmarks.leftEye.x < landmarks.rightEye.x)
            let leftEar = try #require(landmarks.leftEar), rightEar = try #require(landmarks.rightEar), mouth = try #require(landmarks.mouth)
            #expect(leftEar.x < rightEar.x)
            #expect(max(landmarks.leftEye.y, landmarks.rightEye.y) < mouth.y)
            #expect(landmarks.mouthLeft == nil && landmarks.mouthRight == nil && landmarks.allPoints.count == 6)
            #expect(face.boundingBox.width > 0.05 && face.boundingBox.width < 0.08, "about 6% of the width: \(face.boundingBox)")
        }
    }
}

/// The BlazeFace detector committed in `Models/blazeface`, loaded once for all tests.
enum ShippedBlazeFace {
    static let directory = ShippedModel.directory.deletingLastPathComponent().appending(path: "blazeface")
    static let model: FaceDetectorModel = {
        do { return try FaceDetectorModel(contentsOf: directory) } catch { fatalError("shipped BlazeFace does not load: \(error)") }
    }()
    static var pipeline: BlazeFacePipeline { model.blazeFace! }
}
