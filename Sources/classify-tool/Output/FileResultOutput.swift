import Classify
import Foundation
import TagIndex

/// One file of `classify --format json|jsonl`: its labels, or why it failed.
///
/// Usage: `let data = try JSONOutput.encode(ClassifiedFileOutput(path: path, result: result, observations: kept))`
struct ClassifiedFileOutput: Codable, Sendable {
    var path: String
    var width: Int?
    var height: Int?
    var format: String?
    var observations: [Observation]?
    /// The date taken as the file states it (ISO 8601, with the UTC offset when the file has one).
    var taken: String?
    /// Where the photo was taken (degrees; altitude in metres above sea level).
    var gps: GPSOutput?
    var camera: CameraOutput?
    var error: FailureOutput?

    /// A label the classifier saw, with its confidence to 6 decimals.
    struct Observation: Codable, Sendable {
        var identifier: String
        var displayName: String
        var confidence: Double
        var wnid: String?
    }

    /// Usage: `ClassifiedFileOutput(path: path, result: .success(result), observations: result.observations)`
    init(path: String, result: Result<ClassificationResult, ClassificationError>, observations: (ClassificationResult) -> [ClassificationObservation]) {
        self.path = path
        switch result {
        case .success(let result):
            width = result.width
            height = result.height
            format = result.format.rawValue
            self.observations = observations(result).map {
                Observation(
                    identifier: $0.identifier, displayName: $0.displayName, confidence: JSONOutput.rounded(Double($0.confidence), decimals: 6),
                    wnid: $0.wordNetID)
            }
            let metadata = result.metadata
            taken = metadata.dateTaken?.iso8601
            gps = metadata.location.map { GPSOutput(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
            camera = metadata.camera.map { CameraOutput(make: $0.make, model: $0.model, lens: $0.lensModel) }
        case .failure(let failure):
            error = FailureOutput(stage: failure.stage.rawValue, reason: failure.reason)
        }
    }
}

/// One file of `faces --format json|jsonl`: its faces in pixels of the upright image (top-left
/// origin, 0.01 px) with named landmarks, or why it failed.
///
/// Usage: `let data = try JSONOutput.encode(FacesOfFileOutput(path: path, result: result))`
struct FacesOfFileOutput: Codable, Sendable {
    var path: String
    var width: Int?
    var height: Int?
    var faces: [Face]?
    var error: FailureOutput?

    /// A point in pixels.
    struct Point: Codable, Sendable {
        var x: Double
        var y: Double
    }

    /// A face: its box, confidence (6 decimals) and landmarks by name.
    struct Face: Codable, Sendable {
        var x: Double
        var y: Double
        var width: Double
        var height: Double
        var confidence: Double
        var landmarks: [String: Point]
    }

    /// Usage: `FacesOfFileOutput(path: path, result: result)`
    init(path: String, result: Result<FaceDetectionResult, ClassificationError>) {
        self.path = path
        switch result {
        case .success(let result):
            width = result.width
            height = result.height
            faces = result.faces.map { face in
                let box = face.pixelBoundingBox
                return Face(
                    x: JSONOutput.rounded(box.x, decimals: 2), y: JSONOutput.rounded(box.y, decimals: 2),
                    width: JSONOutput.rounded(box.width, decimals: 2), height: JSONOutput.rounded(box.height, decimals: 2),
                    confidence: JSONOutput.rounded(Double(face.confidence), decimals: 6),
                    landmarks: Dictionary(
                        face.pixelLandmarks.namedPoints.map {
                            ($0.0, Point(x: JSONOutput.rounded($0.1.x, decimals: 2), y: JSONOutput.rounded($0.1.y, decimals: 2)))
                        }, uniquingKeysWith: { first, _ in first }))
            }
        case .failure(let failure):
            error = FailureOutput(stage: failure.stage.rawValue, reason: failure.reason)
        }
    }
}
