import Foundation

/// One kept label of an exported image.
///
/// ```swift
/// for label in record.labels { print(label.displayName, label.confidence, label.hierarchy) }
/// ```
public struct ExportedLabel: Sendable, Hashable {
    /// Label identifier.
    public var identifier: String
    /// Human name (what photo tools show as the keyword).
    public var displayName: String
    /// The label's own confidence (1 for a label a person added).
    public var confidence: Double
    /// Every route from a top-level label down to this one, as human names (`["Animal", "Dog",
    /// "Golden Retriever"]`); one route for a tree, more where a label has several parents.
    public var hierarchy: [[String]]
    /// Whether a person added the label (``SQLiteIndex/addLabel(_:to:)``).
    public var isAdded: Bool
    /// Whether the label is a person's own, outside the taxonomy.
    public var isUserLabel: Bool
}

/// What an export writes for one indexed file: its facts and the labels kept by the export's filter,
/// corrections applied.
///
/// ```swift
/// try index.exportRecords(filter: .highPrecision) { record in print(record.path, record.labels.map(\.displayName)) }
/// ```
public struct ExportRecord: Sendable, Hashable {
    /// Absolute path.
    public var path: String
    /// Size in bytes.
    public var size: Int64
    /// Modification time of the file when it was indexed.
    public var modificationTime: Date
    /// When the file was classified.
    public var indexedAt: Date
    /// Width in pixels (nil for a failed file).
    public var width: Int?
    /// Height in pixels (nil for a failed file).
    public var height: Int?
    /// ``ContentHash`` of the bytes, when they could be read.
    public var contentHash: String?
    /// The model that produced the labels.
    public var model: ModelStamp?
    /// For a file that could not be classified: the stage that failed and why.
    public var failureStage: String?
    /// Why the stage failed.
    public var failureReason: String?
    /// Kept labels, highest confidence first.
    public var labels: [ExportedLabel]
    /// Identifiers of the labels a person removed from this content.
    public var removedLabels: [String]
    /// The stored faces, highest confidence first (boxes in pixels of the upright image); nil when
    /// faces were not looked for (an index run without faces, or a failed file).
    public var faces: [IndexedFace]? = nil
}
