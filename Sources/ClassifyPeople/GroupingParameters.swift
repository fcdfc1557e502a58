/// The numbers that shape a grouping.
///
/// ```swift
/// var parameters = GroupingParameters()
/// parameters.matchDistance = 0.5   // stricter than dlib's 0.6
/// ```
public struct GroupingParameters: Sendable, Hashable {
    /// Two faces are similar when the Euclidean distance of their descriptors is below this.
    /// 0.6 is dlib's threshold for its face recognition ResNet (`dnn_face_recognition_ex.cpp`),
    /// where it reaches 99.38% on LFW. Usage: `parameters.matchDistance`
    public var matchDistance: Float = 0.6
    /// Faces that match no one wait, unassigned, until this many similar faces (a face and at least
    /// `minimumFaces - 1` within `matchDistance` of it) can form a new person. 3 is Immich's default
    /// (`minFaces`). Usage: `parameters.minimumFaces`
    public var minimumFaces: Int = 3
    /// Faces whose box is shorter than this on its shorter side, in pixels of the photo, take no
    /// part in automatic grouping, and named people do not draw them in: the recognizer reads a
    /// 150-pixel chip, so such a face is upscaled four times or more, and its descriptor is near
    /// strangers' (on the 500 labelled photos, 58 of the 71 pairs of different people within 0.6
    /// had a face under 40 px). A fact (name, move, merge) still places such a face.
    /// Usage: `parameters.minimumFaceSide`
    public var minimumFaceSide: Double = 40
    /// Floats per descriptor; faces of another length are refused. Usage: `parameters.dimension`
    public var dimension: Int = 128
    /// Threads for the distance scan; 0 means one per processor. Usage: `parameters.threads = 1`
    public var threads: Int = 0

    /// The defaults above. Usage: `GroupingParameters()`
    public init() {}

    /// Usage: `GroupingParameters(matchDistance: 0.5, minimumFaces: 4)`
    public init(matchDistance: Float, minimumFaces: Int = 3, minimumFaceSide: Double = 40, dimension: Int = 128, threads: Int = 0) {
        self.matchDistance = matchDistance
        self.minimumFaces = minimumFaces
        self.minimumFaceSide = minimumFaceSide
        self.dimension = dimension
        self.threads = threads
    }
}

/// Why faces could not be grouped.
///
/// ```swift
/// do { try grouper.add(faces) } catch let error as GroupingError { print(error) }
/// ```
public enum GroupingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The face's descriptor has `count` floats; the grouping takes `expected`.
    case wrongDimension(FaceKey, count: Int, expected: Int)
    /// The face's descriptor holds a NaN or an infinity, or a value beyond fp16's range (65504).
    case nonFiniteDescriptor(FaceKey)
    /// The face was given twice (in one call, or again after it was added).
    case duplicateFace(FaceKey)
    /// `matchDistance` is not a positive finite number, `minimumFaces` is below 2, `minimumFaceSide`
    /// is negative or not finite, or `dimension` below 1.
    case invalidParameters(String)
    /// Stored bytes that are not a ``GroupingSnapshot`` this version reads.
    case invalidSnapshot(String)

    /// A sentence naming the face. Usage: `print(error.description)`
    public var description: String {
        switch self {
        case .wrongDimension(let key, let count, let expected):
            "Face \(key): its descriptor has \(count) values; people grouping takes \(expected)."
        case .nonFiniteDescriptor(let key):
            "Face \(key): its descriptor holds a value that is not finite or beyond fp16's range; re-describe the face."
        case .duplicateFace(let key):
            "Face \(key) was given twice; each face is grouped once."
        case .invalidParameters(let reason):
            "Invalid grouping parameters: \(reason)."
        case .invalidSnapshot(let reason):
            "The stored people grouping cannot be continued: \(reason); people are grouped from scratch."
        }
    }
}
