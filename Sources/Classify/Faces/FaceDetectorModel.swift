import Foundation
import ClassifySupport

/// The MTCNN face detector's three networks (`Models/mtcnn/{pnet,rnet,onet}`), loaded and
/// checked once, then shared by any number of concurrent detections.
///
/// Usage:
/// ```swift
/// let model = try FaceDetectorModel.shared()                  // Models/mtcnn, found like the classifier
/// let custom = try FaceDetectorModel(contentsOf: directory)   // a directory holding pnet/ rnet/ onet/
/// ```
public final class FaceDetectorModel: Sendable {
    /// Name of the shipped detector's directory under `Models/`. Usage: `FaceDetectorModel.defaultModelName`
    public static let defaultModelName = "mtcnn"
    /// The directory the networks were loaded from. Usage: `print(model.directory.path)`
    public let directory: URL
    let pnet: DetectorNetwork
    let rnet: DetectorNetwork
    let onet: DetectorNetwork

    /// Loads `pnet/`, `rnet/` and `onet/` from `directory`, compiling each graph once.
    ///
    /// Usage: `let model = try FaceDetectorModel(contentsOf: URL(fileURLWithPath: "Models/mtcnn"))`
    public init(contentsOf directory: URL) throws(ModelLoadingError) {
        self.directory = directory
        pnet = try DetectorNetwork(contentsOf: directory.appending(path: "pnet"))
        rnet = try DetectorNetwork(contentsOf: directory.appending(path: "rnet"))
        onet = try DetectorNetwork(contentsOf: directory.appending(path: "onet"))
        for (network, roles) in [(pnet, ["probabilities", "boxes"]), (rnet, ["probabilities", "boxes"]), (onet, ["probabilities", "boxes", "landmarks"])] {
            for role in roles where network.description.outputs[role] == nil {
                throw .invalidGraph(file: network.directoryName + "/model.json", node: role, reason: "the detector needs an output '\(role)'")
            }
            // The pipeline resamples every input from one table normalized once (see AreaResampling).
            let input = network.description.input, first = pnet.description.input
            guard input.channels == 3, input.mean.count == 3, input.std.count == 3, input.mean == first.mean, input.std == first.std else {
                throw .invalidGraph(file: network.directoryName + "/model.json", node: input.name,
                                    reason: "the detector needs three RGB inputs normalized alike (mean \(input.mean), std \(input.std))")
            }
        }
    }

    /// The pipeline with facenet-pytorch's defaults (minimum face 20 px, factor 0.709,
    /// thresholds 0.6 / 0.7 / 0.7).
    var pipeline: MTCNNPipeline { MTCNNPipeline(pnet: pnet, rnet: rnet, onet: onet) }

    private static let sharedModel = Locked<FaceDetectorModel?>(nil)

    /// Environment variable naming the detector's directory. Usage: `FaceDetectorModel.environmentVariable`
    public static let environmentVariable = "CLASSIFY_FACE_MODEL_DIR"

    /// The directories tried, in order: `CLASSIFY_FACE_MODEL_DIR`; `mtcnn` beside the directory
    /// `CLASSIFY_MODEL_DIR` names; then `ModelLocator`'s places for `mtcnn`.
    ///
    /// Usage: `print(FaceDetectorModel.candidateDirectories().map(\.path))`
    public static func candidateDirectories() -> [URL] {
        let environment = ProcessInfo.processInfo.environment
        var candidates: [URL] = []
        if let own = environment[environmentVariable], !own.isEmpty { candidates.append(URL(fileURLWithPath: own, isDirectory: true)) }
        if let classifier = environment[ModelLocator.environmentVariable], !classifier.isEmpty {
            candidates.append(URL(fileURLWithPath: classifier, isDirectory: true).deletingLastPathComponent().appending(path: defaultModelName))
        }
        let located = ModelLocator.candidateDirectories(modelName: defaultModelName)
        let hasOverride = environment[ModelLocator.environmentVariable].map { !$0.isEmpty } ?? false
        return candidates + (hasOverride ? Array(located.dropFirst()) : located)
    }

    /// The detector in the default place (the first of `candidateDirectories()` holding
    /// `pnet/model.json`), loaded on first use and then shared.
    ///
    /// Usage: `let model = try FaceDetectorModel.shared()`
    public static func shared() throws(ModelLoadingError) -> FaceDetectorModel {
        if let model = sharedModel.withLock({ $0 }) { return model }
        let candidates = candidateDirectories()
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.appending(path: "pnet/model.json").path) }) else {
            throw .notFound(searched: candidates.map(\.path))
        }
        let model = try FaceDetectorModel(contentsOf: found)
        return sharedModel.withLock { existing in
            if let existing { return existing }
            existing = model
            return model
        }
    }
}
