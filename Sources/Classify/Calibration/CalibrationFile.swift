import Foundation

/// Per-label precision/recall curves, as written by `classify-tool calibrate` to
/// `calibration.json` in the model directory (format in `Models/FORMAT.md`).
///
/// A label with enough positives in the calibration set has its own curve; every other label
/// uses the pooled curve of its kind (all leaves together, or all parents together).
///
/// ```swift
/// let calibration = try CalibrationFile(contentsOf: directory.appending(path: "calibration.json"))
/// let curve = calibration.curve(for: "dog", isLeaf: false)
/// ```
public struct CalibrationFile: Sendable, Codable {
    /// The `formatVersion` this library reads and writes.
    public static let supportedFormatVersion = 1

    public var format = "classify-calibration"
    public var formatVersion = CalibrationFile.supportedFormatVersion
    /// Model the curves were measured for (`name` and `modelVersion` of model.json).
    public var model: String
    public var modelVersion: String
    /// Where the labelled images came from and how many there were.
    public var source: Source
    /// Fewest positives a label needs for its own curve.
    public var minimumPositives: Int
    /// Curves shared by labels with too few positives.
    public var pooledLeafCurve: [PrecisionRecallCurve.Point]
    public var pooledParentCurve: [PrecisionRecallCurve.Point]
    /// Labels with their own curve.
    public var labels: [String: LabelCurve]
    /// Positives per label in the calibration set, for every label that had any.
    public var positiveCounts: [String: Int]

    /// Provenance of the calibration set.
    public struct Source: Sendable, Codable, Equatable {
        public var description: String
        public var imageCount: Int
        public var failedCount: Int
        public var createdBy: String

        public init(description: String, imageCount: Int, failedCount: Int, createdBy: String) {
            self.description = description
            self.imageCount = imageCount
            self.failedCount = failedCount
            self.createdBy = createdBy
        }
    }

    /// One label's own curve.
    public struct LabelCurve: Sendable, Codable {
        public var positives: Int
        public var points: [PrecisionRecallCurve.Point]
    }

    /// The file's name in a model directory for the curves measured at `precision`:
    /// `calibration.json` (fp32) or `calibration-int8.json`.
    ///
    /// Usage: `directory.appending(path: CalibrationFile.fileName(for: .int8))`
    public static func fileName(for precision: InferencePrecision) -> String {
        precision == .fp32 ? "calibration.json" : "calibration-\(precision.rawValue).json"
    }

    /// The curve to use for `identifier`: its own, or the pooled one of its kind.
    public func curve(for identifier: String, isLeaf: Bool) -> PrecisionRecallCurve {
        if let own = labels[identifier] { return PrecisionRecallCurve(points: own.points) }
        return PrecisionRecallCurve(points: isLeaf ? pooledLeafCurve : pooledParentCurve, isPooled: true)
    }

    /// Reads and checks a calibration file.
    public init(contentsOf url: URL) throws(ModelLoadingError) {
        self = try ModelJSONFile.read(
            CalibrationFile.self, from: url, format: "classify-calibration", supportedVersion: Self.supportedFormatVersion)
    }

    public init(model: String, modelVersion: String, source: Source, minimumPositives: Int,
                pooledLeafCurve: [PrecisionRecallCurve.Point], pooledParentCurve: [PrecisionRecallCurve.Point],
                labels: [String: LabelCurve], positiveCounts: [String: Int]) {
        self.model = model
        self.modelVersion = modelVersion
        self.source = source
        self.minimumPositives = minimumPositives
        self.pooledLeafCurve = pooledLeafCurve
        self.pooledParentCurve = pooledParentCurve
        self.labels = labels
        self.positiveCounts = positiveCounts
    }

    /// Writes the file with sorted keys, so regenerating it from the same data gives the same bytes.
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        try data.write(to: url, options: .atomic)
    }
}

/// Read with the checks every model JSON file gets (format name and version).
extension CalibrationFile: VersionedModelFile {}
