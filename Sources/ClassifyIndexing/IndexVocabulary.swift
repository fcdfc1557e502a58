import Classify
import TagIndex

/// How a model's labels and results are written into a `SQLiteIndex`: the taxonomy with curves and
/// the search vocabulary on top of it, the model stamp that decides when stored labels are stale,
/// and one image's entry.
///
/// ```swift
/// let vocabulary = IndexVocabulary(model: try .shared())
/// try vocabulary.install(into: index)
/// ```
public struct IndexVocabulary: Sendable {
    /// The model's labels: taxonomy, curves and search vocabulary.
    public let labelSet: LabelSet
    /// The model's `model.json`: its name and version make the stamp.
    public let modelDescription: ModelDescription
    /// Name and version stored with every image. The version joins the weights' `modelVersion` and a
    /// fingerprint of the taxonomy, because parent confidences are stored too: a changed taxonomy
    /// makes them stale just as new weights do.
    public let stamp: ModelStamp
    /// The taxonomy (leaves and parents) with each label's calibrated curve.
    public let labelDefinitions: [LabelDefinition]
    /// The model's search vocabulary (`vocabulary.json`): everyday words mapped to labels, or
    /// marked as something the classifier cannot see. Empty when the model has none.
    public let searchWords: [VocabularyWord]

    /// Whether faces are detected and stored: adds the ``faceLabel`` to the taxonomy. The stamp
    /// does not change with it (faces do not change what the classifier says): images indexed
    /// without faces keep their labels and get their faces added by the next run with faces
    /// (``LibraryIndexer/Report/facesAdded``).
    public let faces: Bool

    /// The label an image gets when faces are found in it, with the best face's confidence:
    /// `face`, below `person` when the taxonomy has it, so `person` and `people` match photos
    /// with faces too (``SQLiteIndex/faceLabel``, which search and calibrated filters know).
    /// Usage: `IndexVocabulary.faceLabel`
    public static let faceLabel = SQLiteIndex.faceLabel

    /// Usage: `let vocabulary = IndexVocabulary(model: try .shared(), faces: true)`
    public init(model: ImageClassifierModel, faces: Bool = false) {
        self.init(labelSet: model.labelSet, description: model.description, faces: faces)
    }

    /// The vocabulary of a model's labels before its network has loaded
    /// (``ImageClassifierModel/Loading``).
    ///
    /// Usage: `let vocabulary = IndexVocabulary(labelSet: try loading.labelSet(), description: loading.description, faces: true)`
    public init(labelSet: LabelSet, description: ModelDescription, faces: Bool = false) {
        self.labelSet = labelSet
        self.modelDescription = description
        self.faces = faces
        var definitions = labelSet.taxonomy.labels.map { label in
            LabelDefinition(
                identifier: label.identifier, displayName: label.displayName, synonyms: label.synonyms,
                parents: label.parents,
                curve: labelSet.curves?[label.index].points.map {
                    CurvePoint(threshold: Double($0.threshold), precision: Double($0.precision), recall: Double($0.recall))
                })
        }
        if faces, !definitions.contains(where: { $0.identifier == Self.faceLabel }) {
            let person = definitions.contains { $0.identifier == "person" }
            definitions.append(LabelDefinition(
                identifier: Self.faceLabel, displayName: "face", synonyms: ["face", "faces"],
                parents: person ? ["person"] : [], curve: nil))
        }
        labelDefinitions = definitions
        searchWords = (labelSet.vocabulary?.words ?? []).map { word in
            if let explanation = word.unsupported {
                VocabularyWord(word: word.word, unsupported: explanation, facesAtLeast: word.facesAtLeast, reason: word.reason)
            } else {
                VocabularyWord(word: word.word, labels: word.labels, facesAtLeast: word.facesAtLeast, reason: word.reason)
            }
        }
        var hasher = ContentHash()
        for label in labelSet.taxonomy.labels {
            hasher.update("\(label.identifier)<\(label.parents.joined(separator: ","))\n".utf8)
        }
        let fingerprint = String(hasher.finalizeHex().prefix(8))
        stamp = ModelStamp(name: description.name, version: "\(description.modelVersion)+taxonomy.\(fingerprint)")
    }

    /// Installs the taxonomy, its curves and the search vocabulary in `index` (nothing is rewritten
    /// when they are unchanged).
    ///
    /// ```swift
    /// try IndexVocabulary(model: model).install(into: index)
    /// ```
    public func install(into index: SQLiteIndex) throws {
        try index.replaceTaxonomy(labelDefinitions, model: stamp, vocabulary: searchWords)
    }

    /// The index row for a classified image: every observation at or above the index's storage
    /// floor (leaves and parents) and the feature print.
    /// With `faces` (the detector's result, nil when faces were not looked for), the image also
    /// gets the ``faceLabel`` at its best face's confidence and its faces are stored, with their
    /// `descriptors` (one per face, in the detector's order; nil: recognition did not run);
    /// `facesThorough` says the thorough detector looked too (``ImageClassification/facesThorough``).
    /// `metadata` (see ``PhotoMetadataReader``) is stored when given.
    public func entry(
        for result: ClassificationResult, faces: FaceDetectionResult? = nil, descriptors: [[Float]?]? = nil, facesThorough: Bool = false,
        metadata: IndexedMetadata? = nil, file: FileFacts, contentHash: String
    ) -> IndexEntry {
        let floor = Float(SQLiteIndex.storageFloor)
        var observations = result.observations.filter { $0.confidence >= floor }
            .map { LabelConfidence(identifier: $0.identifier, confidence: Double($0.confidence)) }
        if self.faces, let best = faces?.faces.map(\.confidence).max(), best >= floor {
            observations.append(LabelConfidence(identifier: Self.faceLabel, confidence: Double(best)))
        }
        var classification = ImageClassification(
            path: file.path, size: file.size, modificationTime: file.modificationTime, contentHash: contentHash,
            width: result.width, height: result.height, model: stamp,
            observations: observations,
            featurePrint: result.featurePrint.values,
            dominantColors: result.dominantColors.map {
                IndexedColor(red: $0.red, green: $0.green, blue: $0.blue, weight: Double($0.weight))
            },
            faces: self.faces ? faces.map { IndexedFace.faces(of: $0, descriptors: descriptors) } : nil,
            metadata: metadata)
        classification.facesThorough = self.faces && faces != nil && facesThorough
        return .classified(classification)
    }

    /// The index row for a file that could not be classified.
    public func entry(for error: ClassificationError, file: FileFacts, contentHash: String?) -> IndexEntry {
        .failed(ImageFailure(
            path: file.path, size: file.size, modificationTime: file.modificationTime, contentHash: contentHash,
            model: stamp, stage: error.stage.rawValue, reason: error.reason))
    }
}
