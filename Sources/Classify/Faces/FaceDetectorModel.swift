import Foundation
import ClassifySupport

/// A face detector's networks, loaded and checked once, then shared by any number of concurrent
/// detections: MTCNN's three (`Models/mtcnn/{pnet,rnet,onet}`, the default) or BlazeFace's
/// (`Models/blazeface/full-range`). `kind` says which; `FaceDetector` runs either.
///
/// Usage:
/// ```swift
/// let model = try FaceDetectorModel.shared()                  // Models/mtcnn, found like the classifier
/// let blazeFace = try FaceDetectorModel.shared(.blazeFace)    // Models/blazeface
/// let custom = try FaceDetectorModel(contentsOf: directory)   // pnet/ rnet/ onet/, or full-range/
/// ```
public final class FaceDetectorModel: Sendable {
    /// Name of the default detector's directory under `Models/`. Usage: `FaceDetectorModel.defaultModelName`
    public static let defaultModelName = FaceDetector.Kind.mtcnn.modelName
    /// The directory the networks were loaded from. Usage: `print(model.directory.path)`
    public let directory: URL
    /// Which detector these networks make. Usage: `if model.kind == .blazeFace { ... }`
    public let kind: FaceDetector.Kind
    let networks: Networks

    /// The networks of each kind of detector.
    enum Networks: Sendable {
        case mtcnn(MTCNNNetworks)
        case blazeFace(BlazeFacePipeline)
    }

    /// MTCNN's three networks.
    struct MTCNNNetworks: Sendable {
        let pnet: DetectorNetwork
        let rnet: DetectorNetwork
        let onet: DetectorNetwork

        /// The pipeline with facenet-pytorch's defaults (minimum face 20 px, factor 0.709,
        /// thresholds 0.6 / 0.7 / 0.7).
        var pipeline: MTCNNPipeline { MTCNNPipeline(pnet: pnet, rnet: rnet, onet: onet) }
    }

    /// MTCNN's networks, nil for another kind of detector.
    var mtcnn: MTCNNNetworks? { if case .mtcnn(let networks) = networks { networks } else { nil } }
    /// BlazeFace's pipeline, nil for another kind of detector.
    var blazeFace: BlazeFacePipeline? { if case .blazeFace(let pipeline) = networks { pipeline } else { nil } }

    /// Loads the detector in `directory`: MTCNN when it holds `pnet/model.json`, BlazeFace when it
    /// holds `full-range/model.json`, compiling each graph once.
    ///
    /// Usage: `let model = try FaceDetectorModel(contentsOf: URL(fileURLWithPath: "Models/mtcnn"))`
    public init(contentsOf directory: URL) throws(ModelLoadingError) {
        self.directory = directory
        guard let kind = FaceDetector.Kind.allCases.first(where: { FileManager.default.fileExists(atPath: directory.appending(path: $0.markerFile).path) }) else {
            throw .notFound(searched: FaceDetector.Kind.allCases.map { directory.appending(path: $0.markerFile).path })
        }
        self.kind = kind
        switch kind {
        case .mtcnn: networks = .mtcnn(try Self.loadMTCNN(directory))
        case .blazeFace: networks = .blazeFace(try BlazeFacePipeline(network: DetectorNetwork(contentsOf: directory.appending(path: "full-range"))))
        }
    }

    private static func loadMTCNN(_ directory: URL) throws(ModelLoadingError) -> MTCNNNetworks {
        let pnet = try DetectorNetwork(contentsOf: directory.appending(path: "pnet"))
        let rnet = try DetectorNetwork(contentsOf: directory.appending(path: "rnet"))
        let onet = try DetectorNetwork(contentsOf: directory.appending(path: "onet"))
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
        return MTCNNNetworks(pnet: pnet, rnet: rnet, onet: onet)
    }

    private static let sharedModels = Locked<[FaceDetector.Kind: FaceDetectorModel]>([:])

    /// Environment variable naming the default detector's directory. Usage: `FaceDetectorModel.environmentVariable`
    public static let environmentVariable = "CLASSIFY_FACE_MODEL_DIR"

    /// The directories tried for a kind of detector, in order: `CLASSIFY_FACE_MODEL_DIR` (for the
    /// default kind only); the kind's directory (`mtcnn`, `blazeface`) beside the directory
    /// `CLASSIFY_MODEL_DIR` names; then `ModelLocator`'s places for it.
    ///
    /// Usage: `print(FaceDetectorModel.candidateDirectories().map(\.path))`
    public static func candidateDirectories(_ kind: FaceDetector.Kind = .mtcnn) -> [URL] {
        let own = kind == .mtcnn ? ProcessInfo.processInfo.environment[environmentVariable] ?? "" : ""
        return (own.isEmpty ? [] : [URL(fileURLWithPath: own, isDirectory: true)])
            + ModelLocator.siblingCandidateDirectories(modelName: kind.modelName)
    }

    /// The detector of this kind in the default place (the first of `candidateDirectories(kind)`
    /// holding its networks), loaded on first use and then shared.
    ///
    /// Usage: `let model = try FaceDetectorModel.shared()`
    public static func shared(_ kind: FaceDetector.Kind = .mtcnn) throws(ModelLoadingError) -> FaceDetectorModel {
        if let model = sharedModels.withLock({ $0[kind] }) { return model }
        let candidates = candidateDirectories(kind)
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.appending(path: kind.markerFile).path) }) else {
            throw .notFound(searched: candidates.map(\.path))
        }
        let model = try FaceDetectorModel(contentsOf: found)
        return sharedModels.withLock { models in
            if let existing = models[kind] { return existing }
            models[kind] = model
            return model
        }
    }
}
