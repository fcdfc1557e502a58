import Classify
import Foundation
import Testing
@testable import ClassifyBenchmarks

/// `classify-bench face-network`'s runs, once each: the detector at its own size and at a larger
/// one profiles every op at the size asked for, and a size the graph cannot take is refused.
/// Never how fast (the timed runs are `classify-bench face-network`).
@Suite struct FaceNetworkBenchmarkTests {
    static let model: FaceDetectorModel? = {
        let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Models/blazeface")
        return try? FaceDetectorModel(contentsOf: models)
    }()

    @Test func detectorProfilesAtTheSizeAskedFor() throws {
        let model = try #require(Self.model, "Models/blazeface loads")
        let square = try #require(LatencyBenchmark.run(faceDetector: model, threads: 1, iterations: 1, warmup: 0, profileLayers: true))
        #expect(square.layers?.last?.outputShape.hasPrefix("48x48") == true, "\(square.layers?.last?.outputShape ?? "none")")
        let wide = try #require(LatencyBenchmark.run(faceDetector: model, height: 256, width: 320, threads: 1, iterations: 1, warmup: 0, profileLayers: true))
        #expect(wide.layers?.last?.outputShape.hasPrefix("64x80") == true, "\(wide.layers?.last?.outputShape ?? "none")")
        #expect(LatencyBenchmark.run(faceDetector: model, height: 200, width: 200, threads: 1, iterations: 1, warmup: 0) == nil,
                "200 is not a multiple of 32: the feature pyramid's sums do not line up")
    }
}
