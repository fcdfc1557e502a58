import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// The converted MTCNN networks and the Swift detection pipeline against the independent numpy
/// float64 reference of Scripts/make-face-golden (which reads facenet-pytorch's .pt files):
/// per-network outputs within 1e-4; on real photos the same faces, boxes with IoU >= 0.95,
/// confidences within 1e-3 and landmarks within 1 px.
struct FaceGoldenTests {
    struct Golden: Decodable {
        struct Network: Decodable {
            var network: String, seed: UInt32, height: Int, width: Int
            var probabilities: [Float], boxes: [Float], landmarks: [Float]?
        }
        struct Photo: Decodable {
            struct Face: Decodable { var box: [Double]; var confidence: Double; var landmarks: [Double] }
            var file: String, width: Int, height: Int, faces: [Face]
        }
        var networks: [Network]
        var photos: [Photo]
    }

    static let golden: Golden = {
        let url = Bundle.module.url(forResource: "golden-mtcnn", withExtension: "json", subdirectory: "Fixtures/faces")!
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    @Test func fixtureCoversEveryNetworkAndFacePhotos() {
        #expect(Set(Self.golden.networks.map(\.network)) == ["pnet", "rnet", "onet"])
        #expect(Self.golden.photos.count >= 2 && Self.golden.photos.allSatisfy { !$0.faces.isEmpty })
    }

    @Test(arguments: [UInt32(1), 2, 3, 4, 5, 6])
    func networkOutputsMatchTheReference(seed: UInt32) throws {
        let golden = try #require(Self.golden.networks.first { $0.seed == seed })
        let model = ShippedFaceModel.mtcnn
        let network = ["pnet": model.pnet, "rnet": model.rnet, "onet": model.onet][golden.network]!
        let input = goldenInput(seed: seed, count: golden.height * golden.width * 3)
        let outputs = try network.run(height: golden.height, width: golden.width) { _ = $0.update(fromContentsOf: input) }
        #expect(maximumAbsoluteDifference(outputs["probabilities"]!, golden.probabilities) < 1e-4)
        #expect(maximumAbsoluteDifference(outputs["boxes"]!, golden.boxes) < 1e-4)
        if let landmarks = golden.landmarks { #expect(maximumAbsoluteDifference(outputs["landmarks"]!, landmarks) < 1e-4) }
    }

    /// The same, with the PReLU fusion off: both graph forms agree with the reference.
    @Test func unfusedGraphMatchesTheReference() throws {
        let golden = try #require(Self.golden.networks.first { $0.network == "onet" })
        let directory = ShippedFaceModel.directory.appending(path: "onet")
        let description = try NetworkDescription(contentsOf: directory.appending(path: "model.json"))
        let weights = try SafeTensorsFile(contentsOf: directory.appending(path: "model.safetensors"))
        let graph = try GraphCompiler.compile(
            nodes: description.nodes, input: "image", inputShape: FeatureMapShape(height: 48, width: 48, channels: 3),
            outputs: description.outputs.values.sorted(), weights: weights, descriptionFile: "onet/model.json", fusePReLU: false)
        #expect(graph.operations.contains { $0 is PReLUOperation })
        let workspace = graph.makeWorkspace()
        let input = goldenInput(seed: golden.seed, count: 48 * 48 * 3)
        graph.pointer(to: graph.input, in: workspace).update(from: input, count: input.count)
        graph.run(in: workspace)
        let value = graph.value(named: "landmarks")!
        let landmarks = Array(UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: 10))
        #expect(maximumAbsoluteDifference(landmarks, golden.landmarks!) < 1e-4)
    }

    @Test(arguments: ["astronaut.png", "camera.png"])
    func pipelineFindsTheReferenceFaces(file: String) throws {
        let golden = try #require(Self.golden.photos.first { $0.file == file })
        let url = try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/faces"))
        let image = try ImageDecoder().decode(contentsOf: url)
        #expect(image.width == golden.width && image.height == golden.height)
        let faces = try ShippedFaceModel.mtcnn.pipeline.detect(pixels: image.pixels, width: image.width, height: image.height)
        #expect(faces.count == golden.faces.count)
        for expected in golden.faces {
            let box = FaceBox(x1: expected.box[0], y1: expected.box[1], x2: expected.box[2], y2: expected.box[3], score: expected.confidence, landmarks: expected.landmarks)
            let match = try #require(faces.max { $0.intersectionOverUnion(box) < $1.intersectionOverUnion(box) })
            #expect(match.intersectionOverUnion(box) >= 0.95)
            #expect(abs(match.score - expected.confidence) < 1e-3)
            for (a, b) in zip(match.landmarks, expected.landmarks) { #expect(abs(a - b) <= 1) }
        }
    }
}

/// The detector committed in `Models/mtcnn`, loaded once for all tests.
enum ShippedFaceModel {
    static let directory = ShippedModel.directory.deletingLastPathComponent().appending(path: "mtcnn")
    static let model: FaceDetectorModel = {
        do { return try FaceDetectorModel(contentsOf: directory) } catch { fatalError("shipped face detector does not load: \(error)") }
    }()
    /// The shipped MTCNN's three networks.
    static var mtcnn: FaceDetectorModel.MTCNNNetworks { model.mtcnn! }
}
