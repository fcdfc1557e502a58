import Foundation

/// What the index holds about one image: `classify-tool show --format json`, and the gallery's
/// `GET /api/images/{id}` (which adds the id, the file format, the dominant colors and links).
///
/// Usage: `let data = try JSONOutput.encode(ImageOutput(image: image, labels: labels, top: 15))`
public struct ImageOutput: Codable, Sendable {
    public var id: Int64?
    public var path: String
    public var size: Int64
    public var modified: String
    public var indexed: String
    public var hasFeaturePrint: Bool
    public var contentHash: String?
    public var width: Int?
    public var height: Int?
    public var model: String?
    /// The file's format as its first bytes say (gallery).
    public var format: String?
    public var error: FailureOutput?
    public var labels: [LabelConfidenceOutput]
    /// The corrections that apply to the image (`show`; absent when there are none).
    public var corrections: [CorrectionMarkOutput]?
    /// The faces found, absent when faces were not looked for (`show`).
    public var faces: [FaceOutput]?
    /// The dominant colors, heaviest first (gallery).
    public var colors: [ColorOutput]?
    /// Date taken (see ``MetadataFields``). Usage: `output.taken`
    public var taken: String?
    /// Where the date came from. Usage: `output.takenFrom`
    public var takenFrom: String?
    /// Usage: `output.gps?.latitude`
    public var gps: GPSOutput?
    /// Usage: `output.camera?.model`
    public var camera: CameraOutput?
    /// Usage: `output.place?.name`
    public var place: PlaceOutput?
    public var thumbnail: String?
    public var preview: String?

    /// One image with its labels (the first `top`); corrections and faces as `show` gives them.
    ///
    /// Usage: `ImageOutput(image: image, labels: labels, top: 15, corrections: corrections, faces: faces)`
    public init(
        image: IndexedImage, labels: [ImageLabel], top: Int = .max, corrections: [LabelCorrection] = [],
        faces: [IndexedFace]? = nil, marksLeaves: Bool = false
    ) {
        path = image.path
        size = image.size
        modified = JSONOutput.timestamp(image.modificationTime)
        indexed = JSONOutput.timestamp(image.indexedAt)
        hasFeaturePrint = image.hasFeaturePrint
        contentHash = image.contentHash
        if let width = image.width, let height = image.height {
            self.width = width
            self.height = height
        }
        model = image.model?.description
        error = image.failureStage.map { FailureOutput(stage: $0, reason: image.failureReason ?? "") }
        let added = Set(corrections.filter { $0.kind == .added }.map(\.identifier))
        self.labels = labels.prefix(top).map { label in
            LabelConfidenceOutput(
                label, marksLeaf: marksLeaves, corrected: added.contains(label.identifier) && label.confidence == 1 ? "added" : nil)
        }
        self.corrections = corrections.isEmpty ? nil : corrections.map(CorrectionMarkOutput.init)
        self.faces = faces?.enumerated().map { FaceOutput($1, number: $0 + 1) }
    }

    /// Sets the metadata fields.
    ///
    /// Usage: `output.setMetadata(MetadataFields(stored))`
    public mutating func setMetadata(_ fields: MetadataFields) {
        (taken, takenFrom, gps, camera, place) = (fields.taken, fields.takenFrom, fields.gps, fields.camera, fields.place)
    }
}

/// A correction as `show` lists it: the label, added or removed, and whether it is the person's own.
///
/// Usage: `CorrectionMarkOutput(correction)`
public struct CorrectionMarkOutput: Codable, Sendable {
    public var identifier: String
    public var kind: String
    public var userLabel: Bool

    /// Usage: `CorrectionMarkOutput(correction)`
    public init(_ correction: LabelCorrection) {
        identifier = correction.identifier
        kind = correction.kind.rawValue
        userLabel = correction.isUserLabel
    }
}

/// A stored face: its box in pixels of the upright image (top-left origin, 0.1 px) and confidence.
///
/// Usage: `FaceOutput(face)`
public struct FaceOutput: Codable, Sendable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double
    public var confidence: Double
    /// The face's number, from 1 (what `people move PHOTO FACE ID` takes).
    public var face: Int?
    /// The person the face is in: `{"id": 7, "name": "Anna"}` (no name while unnamed); absent
    /// while it waits for a person.
    public var person: FacePerson?

    /// Usage: `FaceOutput(face, number: 1)`
    public init(_ face: IndexedFace, number: Int? = nil) {
        x = JSONOutput.rounded(face.x, decimals: 1)
        y = JSONOutput.rounded(face.y, decimals: 1)
        width = JSONOutput.rounded(face.width, decimals: 1)
        height = JSONOutput.rounded(face.height, decimals: 1)
        confidence = JSONOutput.rounded(face.confidence)
        self.face = number
        person = face.person
    }
}

/// A dominant color and the share of the picture it covers.
///
/// Usage: `ColorOutput(color)`
public struct ColorOutput: Codable, Sendable {
    /// `RRGGBB`.
    public var hex: String
    public var weight: Double

    /// Usage: `ColorOutput(color)`
    public init(_ color: IndexedColor) {
        hex = color.hex
        weight = JSONOutput.rounded(color.weight)
    }
}
