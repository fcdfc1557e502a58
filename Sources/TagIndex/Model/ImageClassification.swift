import Foundation

/// A label and the confidence the classifier gave it.
///
/// ```swift
/// let dog = LabelConfidence(identifier: "dog", confidence: 0.83)
/// ```
public struct LabelConfidence: Sendable, Hashable {
    /// Label identifier, as in ``LabelDefinition/identifier``.
    public var identifier: String
    /// Confidence in 0...1.
    public var confidence: Double

    /// Creates a label confidence.
    ///
    /// ```swift
    /// LabelConfidence(identifier: "cat", confidence: 0.4)
    /// ```
    public init(identifier: String, confidence: Double) {
        self.identifier = identifier
        self.confidence = confidence
    }
}

/// What the classifier saw in one image, ready to be written to the index.
///
/// `observations` holds leaves and parents; those below ``SQLiteIndex/storageFloor``
/// are not stored. `featurePrint`, when present, must have
/// ``FeaturePrint/dimension`` values; it is L2-normalized and stored as fp16.
///
/// ```swift
/// let result = ImageClassification(
///     path: "/photos/a.jpg", size: 2_000, modificationTime: mtime,
///     contentHash: ContentHash.hex(of: bytes), width: 640, height: 480,
///     model: stamp, observations: [LabelConfidence(identifier: "dog", confidence: 0.9)])
/// ```
public struct ImageClassification: Sendable, Hashable {
    /// Absolute, standardized path.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Modification time.
    public var modificationTime: Date
    /// ``ContentHash`` of the file's bytes (hex).
    public var contentHash: String
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// The model that produced `observations`.
    public var model: ModelStamp
    /// Confidences for leaves and parents.
    public var observations: [LabelConfidence]
    /// Pooled feature vector (1280 floats), or nil.
    public var featurePrint: [Float]?
    /// Dominant colors with their weights (stored compactly, see ``IndexedColor``); empty for none.
    public var dominantColors: [IndexedColor] = []
    /// The faces found, highest confidence first; nil when faces were not looked for.
    public var faces: [IndexedFace]?
    /// Whether the thorough detector (MTCNN, `index --faces thorough`) looked for `faces` too,
    /// so a later thorough run need not look again.
    public var facesThorough = false
    /// When, where and with what camera; nil when the metadata was not read.
    public var metadata: IndexedMetadata?

    /// Creates a classification result.
    ///
    /// ```swift
    /// ImageClassification(path: p, size: 1, modificationTime: t, contentHash: h,
    ///                     width: 1, height: 1, model: stamp, observations: [])
    /// ```
    public init(
        path: String, size: Int64, modificationTime: Date, contentHash: String,
        width: Int, height: Int, model: ModelStamp, observations: [LabelConfidence],
        featurePrint: [Float]? = nil, dominantColors: [IndexedColor] = [], faces: [IndexedFace]? = nil,
        metadata: IndexedMetadata? = nil
    ) {
        self.path = path
        self.size = size
        self.modificationTime = modificationTime
        self.contentHash = contentHash
        self.width = width
        self.height = height
        self.model = model
        self.observations = observations
        self.featurePrint = featurePrint
        self.dominantColors = dominantColors
        self.faces = faces
        self.metadata = metadata
    }

    /// The file facts of this result.
    ///
    /// ```swift
    /// let facts = result.facts
    /// ```
    public var facts: FileFacts { FileFacts(path: path, size: size, modificationTime: modificationTime) }
}

/// A file that could not be classified: which stage failed and why.
///
/// Failed files are remembered so an unchanged file is not retried by every run;
/// they are retried when the file or the model stamp changes.
///
/// ```swift
/// let failure = ImageFailure(path: "/photos/bad.jpg", size: 12, modificationTime: mtime,
///                            contentHash: nil, model: stamp, stage: "decode", reason: "truncated JPEG")
/// ```
public struct ImageFailure: Sendable, Hashable {
    /// Absolute, standardized path.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Modification time.
    public var modificationTime: Date
    /// ``ContentHash`` of the bytes, when they could be read.
    public var contentHash: String?
    /// The model stamp of the run that failed.
    public var model: ModelStamp
    /// Failing stage, e.g. `read`, `decode`, `infer`.
    public var stage: String
    /// Human-readable reason.
    public var reason: String

    /// Creates a failure record.
    ///
    /// ```swift
    /// ImageFailure(path: p, size: 0, modificationTime: t, contentHash: nil,
    ///              model: stamp, stage: "read", reason: "permission denied")
    /// ```
    public init(
        path: String, size: Int64, modificationTime: Date, contentHash: String?,
        model: ModelStamp, stage: String, reason: String
    ) {
        self.path = path
        self.size = size
        self.modificationTime = modificationTime
        self.contentHash = contentHash
        self.model = model
        self.stage = stage
        self.reason = reason
    }
}

/// One element of a write batch: a classification or a failure.
///
/// ```swift
/// try index.write(batch: [.classified(result), .failed(failure)])
/// ```
public enum IndexEntry: Sendable, Hashable {
    /// The image was classified.
    case classified(ImageClassification)
    /// The image could not be classified.
    case failed(ImageFailure)

    /// The entry's path.
    ///
    /// ```swift
    /// let path = entry.path
    /// ```
    public var path: String {
        switch self {
        case .classified(let result): result.path
        case .failed(let failure): failure.path
        }
    }
}
