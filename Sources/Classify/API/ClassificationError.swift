/// Why one image could not be classified: the stage that failed and a sentence a user can act on.
///
/// ```swift
/// do { _ = try classifier.classify(contentsOf: url) }
/// catch { print("\(url.path): \(error.stage): \(error.reason)") }
/// ```
public struct ClassificationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Where in the pipeline the image failed.
    public enum Stage: String, Sendable, Codable, CaseIterable {
        /// Opening or reading the file.
        case read
        /// Turning the bytes into pixels.
        case decode
        /// Resizing and normalizing.
        case preprocess
        /// Running the network.
        case infer
        /// Writing the result (used by the index).
        case store
        /// Loading the model.
        case model
    }

    public var stage: Stage
    public var reason: String
    /// The decoder's error, when the stage is `read` or `decode`.
    public var decodingError: ImageDecodingError?

    public init(stage: Stage, reason: String, decodingError: ImageDecodingError? = nil) {
        self.stage = stage
        self.reason = reason
        self.decodingError = decodingError
    }

    /// The read- or decode-stage error for a decoder failure.
    public init(_ error: ImageDecodingError) {
        self.init(stage: error.stage == "read" ? .read : .decode, reason: error.description, decodingError: error)
    }

    public var description: String { "\(stage.rawValue): \(reason)" }
}
