import Classify
import ClassifySupport
import Foundation

/// The face recognizer of an index run, loaded the first time a face needs describing: most runs
/// find no new face, and loading dlib's network costs more than the rest of a run with nothing to
/// do. A load that fails is tried once and remembered (``failure``); the faces are then stored
/// without descriptors, and a later run describes them.
///
/// Usage:
/// ```swift
/// let recognizer = OnDemandRecognizer { try FaceRecognizer.shared() }
/// let report = try await indexer.run(options, classifier: classifier, faceDetector: detector, faceRecognizer: recognizer)
/// if let failure = recognizer.failure { print("faces not described: \(failure)") }
/// ```
public final class OnDemandRecognizer: Sendable {
    private let load: @Sendable () throws -> FaceRecognizer
    private let state = Locked<(recognizer: FaceRecognizer?, failure: String?, tried: Bool)>((nil, nil, false))

    /// `load` runs at most once, on the first call to ``recognizer``.
    /// Usage: `OnDemandRecognizer { try FaceRecognizer.shared() }`
    public init(load: @escaping @Sendable () throws -> FaceRecognizer) {
        self.load = load
    }

    /// The recognizer, loaded now if this is the first call; nil when it does not load.
    /// Usage: `recognizer.recognizer?.descriptors(for: found, decoding: bytes, with: decoder)`
    public var recognizer: FaceRecognizer? {
        state.withLock { state in
            if !state.tried {
                state.tried = true
                do { state.recognizer = try load() } catch { state.failure = "\(error)" }
            }
            return state.recognizer
        }
    }

    /// Why the recognizer did not load; nil when it loaded or was never needed.
    /// Usage: `if let failure = recognizer.failure { print(failure) }`
    public var failure: String? { state.withLock { $0.failure } }

    /// Whether it was needed (and so loaded, or tried). Usage: `recognizer.wasLoaded`
    public var wasLoaded: Bool { state.withLock { $0.tried } }
}
