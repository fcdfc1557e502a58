import Foundation
@testable import Classify

/// The model committed in `Models/efficientnet-lite0`, loaded once for all tests.
enum ShippedModel {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appending(path: "Models/efficientnet-lite0")

    static let model: ImageClassifierModel = {
        do { return try ImageClassifierModel(contentsOf: directory) } catch { fatalError("shipped model does not load: \(error)") }
    }()
}

/// The deterministic input generator shared with Scripts/make-golden: a 32-bit LCG whose top 24
/// bits become a float in [-1, 1), exactly representable, in NHWC order.
func goldenInput(seed: UInt32, count: Int) -> [Float] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 1664525 &+ 1013904223
        return Float((state >> 8) & 0xFFFFFF) / 8388608.0 - 1.0
    }
}
