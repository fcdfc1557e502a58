import Foundation

/// dlib's 5-point shape predictor (`Models/face-recognition/shape-predictor.*`): a cascade of
/// regression trees that places two points per eye and one under the nose in a face box. Loaded
/// and checked once, immutable, shared by any number of concurrent predictions.
///
/// ```swift
/// let model = try FaceLandmarkModel(contentsOf: URL(fileURLWithPath: "Models/face-recognition"))
/// let points = model.landmarks(in: image, box: PixelRect(x: 51, y: 32, width: 44, height: 56))
/// ```
public final class FaceLandmarkModel: Sendable {
    /// Landmarks per face (5). Usage: `model.landmarkCount`
    public let landmarkCount: Int
    let cascades: Int
    let treesPerCascade: Int
    let splitsPerTree: Int
    let features: Int
    /// The mean shape in the box's unit square, x and y per landmark.
    let meanShape: [Double]
    /// [cascade][tree][split] -> (first, second) feature, flattened.
    let splits: [Int32]
    let thresholds: [Float]
    /// [cascade][tree][leaf][landmark][x, y], flattened.
    let leaves: [Float]
    let anchors: [Int32]
    let deltas: [Float]

    /// Reads `shape-predictor.json` and its tensors from `directory`, checking every shape and index.
    ///
    /// Usage: `let model = try FaceLandmarkModel(contentsOf: directory)`
    public init(contentsOf directory: URL) throws(ModelLoadingError) {
        let jsonName = "shape-predictor.json"
        let json: [String: Any]
        do {
            let data = try Data(contentsOf: directory.appending(path: jsonName))
            guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw ModelLoadingError.malformed(file: jsonName, reason: "not a JSON object")
            }
            json = object
        } catch let error as ModelLoadingError {
            throw error
        } catch {
            throw .unreadable(file: directory.appending(path: jsonName).path, reason: error.localizedDescription)
        }
        guard json["format"] as? String == "classify-shape-predictor" else {
            throw .malformed(file: jsonName, reason: "format is not classify-shape-predictor")
        }
        guard let version = json["formatVersion"] as? Int, version == 1 else {
            throw .unsupportedFormat(file: jsonName, found: json["formatVersion"] as? Int ?? -1, supported: 1)
        }
        guard let cascades = json["cascades"] as? Int, let trees = json["treesPerCascade"] as? Int,
            let depth = json["treeDepth"] as? Int, let features = json["features"] as? Int,
            let names = json["landmarks"] as? [String], let weights = json["weights"] as? String,
            cascades > 0, trees > 0, (1...16).contains(depth), features > 0, !names.isEmpty
        else { throw .malformed(file: jsonName, reason: "cascades, treesPerCascade, treeDepth, features, landmarks or weights is missing or out of range") }
        let splitCount = (1 << depth) - 1, landmarkCount = names.count
        let file = try SafeTensorsFile(contentsOf: directory.appending(path: weights))
        meanShape = try file.floats("initialShape", shape: [landmarkCount, 2]).map(Double.init)
        splits = try file.int32s("splits", shape: [cascades, trees, splitCount, 2])
        thresholds = try file.floats("thresholds", shape: [cascades, trees, splitCount])
        leaves = try file.floats("leaves", shape: [cascades, trees, splitCount + 1, landmarkCount, 2])
        anchors = try file.int32s("anchors", shape: [cascades, features])
        deltas = try file.floats("deltas", shape: [cascades, features, 2])
        guard splits.allSatisfy({ (0..<Int32(features)).contains($0) }) else {
            throw .malformed(file: weights, reason: "a split names a feature beyond the \(features) there are")
        }
        guard anchors.allSatisfy({ (0..<Int32(landmarkCount)).contains($0) }) else {
            throw .malformed(file: weights, reason: "a feature is anchored to a landmark beyond the \(landmarkCount) there are")
        }
        self.landmarkCount = landmarkCount
        self.cascades = cascades
        treesPerCascade = trees
        splitsPerTree = splitCount
        self.features = features
    }
}
