import Foundation

/// One image of `classify-tool export --format jsonl` (a JSON Lines row): its file facts, kept
/// labels with their taxonomy paths and corrections, and the faces where faces were looked for.
///
/// Usage: `let line = String(decoding: try JSONOutput.encode(ExportRecordOutput(record)), as: UTF8.self)`
public struct ExportRecordOutput: Codable, Sendable {
    public var path: String
    public var size: Int64
    public var width: Int?
    public var height: Int?
    public var modified: String
    public var indexed: String
    public var model: String?
    public var contentHash: String?
    public var labels: [Label]
    /// Labels a person removed (absent when none).
    public var removed: [String]?
    public var error: FailureOutput?
    public var faceCount: Int?
    public var faces: [FaceOutput]?

    /// A kept label: confidence to 4 decimals, its paths from the root (`|`-separated), and
    /// whether a person added it or it is their own.
    public struct Label: Codable, Sendable {
        public var identifier: String
        public var name: String
        public var confidence: Double
        public var paths: [String]
        public var added: Bool?
        public var userLabel: Bool?
    }

    /// Usage: `ExportRecordOutput(record)`
    public init(_ record: ExportRecord) {
        path = record.path
        size = record.size
        if let width = record.width, let height = record.height {
            self.width = width
            self.height = height
        }
        modified = JSONOutput.timestamp(record.modificationTime)
        indexed = JSONOutput.timestamp(record.indexedAt)
        model = record.model?.description
        contentHash = record.contentHash
        labels = record.labels.map { label in
            Label(
                identifier: label.identifier, name: label.displayName, confidence: JSONOutput.rounded(label.confidence),
                paths: label.hierarchy.map { $0.joined(separator: "|") }, added: label.isAdded ? true : nil,
                userLabel: label.isUserLabel ? true : nil)
        }
        removed = record.removedLabels.isEmpty ? nil : record.removedLabels
        error = record.failureStage.map { FailureOutput(stage: $0, reason: record.failureReason ?? "") }
        faceCount = record.faces?.count
        faces = record.faces?.map { FaceOutput($0) }
    }
}
