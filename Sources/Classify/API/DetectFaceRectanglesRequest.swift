import Foundation

/// Finds the faces in an image, shaped like Vision's `VNDetectFaceRectanglesRequest`: on-device,
/// with the MTCNN detector shipped in `Models/mtcnn` (loaded once and shared).
///
/// Usage:
/// ```swift
/// let faces = try await DetectFaceRectanglesRequest().perform(on: url)   // highest confidence first
/// for face in faces { print(face.boundingBox, face.confidence, face.landmarks.nose) }
/// ```
public struct DetectFaceRectanglesRequest: Sendable {
    private let modelDirectory: URL?
    /// Largest image (width x height from the header) accepted; larger ones throw before decoding.
    /// Usage: `request.maximumPixelCount = 50_000_000`
    public var maximumPixelCount = 100_000_000
    /// Faces below this confidence are left out (default 0.95, see `FaceDetector.defaultMinimumConfidence`).
    /// Usage: `request.minimumConfidence = 0.7`
    public var minimumConfidence: Float = FaceDetector.defaultMinimumConfidence

    /// A request on the shipped detector (found by `FaceDetectorModel.candidateDirectories()`).
    ///
    /// Usage: `let request = DetectFaceRectanglesRequest()`
    public init() { modelDirectory = nil }

    /// A request on the detector in `modelDirectory` (holding `pnet/`, `rnet/`, `onet/`).
    ///
    /// Usage: `let request = DetectFaceRectanglesRequest(modelDirectory: URL(fileURLWithPath: "Models/mtcnn"))`
    public init(modelDirectory: URL) { self.modelDirectory = modelDirectory }

    /// The faces in the image file at `url`; throws `ClassificationError` for a file that cannot
    /// be read or decoded.
    ///
    /// Usage: `let faces = try await DetectFaceRectanglesRequest().perform(on: url)`
    public func perform(on url: URL) async throws -> [FaceObservation] {
        try detector().detect(contentsOf: url).faces
    }

    /// The faces in an in-memory image file (any format the library reads).
    ///
    /// Usage: `let faces = try await DetectFaceRectanglesRequest().perform(on: data)`
    public func perform(on data: Data) async throws -> [FaceObservation] {
        try detector().detect(data: data).faces
    }

    private func detector() throws -> FaceDetector {
        let model = try modelDirectory.map { try FaceDetectorModel(contentsOf: $0) } ?? FaceDetectorModel.shared()
        var detector = FaceDetector(model: model)
        detector.decoder.maximumPixelCount = maximumPixelCount
        detector.minimumConfidence = minimumConfidence
        return detector
    }
}
