import Foundation
import GRDB

/// A stored label of one image.
///
/// ```swift
/// for label in try index.labels(forPath: "/photos/a.jpg") { print(label.identifier, label.confidence ?? 0) }
/// ```
public struct ImageLabel: Sendable, Hashable {
    /// Label identifier.
    public var identifier: String
    /// The classifier's confidence for this label, nil when only a label below it was seen.
    public var confidence: Double?
    /// Highest confidence of this label or any label below it (what a search term matches).
    public var subtreeConfidence: Double
    /// Whether the label is one of the classifier's own classes (no label below it in the taxonomy).
    public var isLeaf: Bool
}

extension SQLiteIndex {
    /// The stored labels of an image, highest subtree confidence first; empty when not indexed.
    ///
    /// ```swift
    /// let labels = try index.labels(forPath: "/photos/a.jpg")
    /// ```
    public func labels(forPath path: String) throws -> [ImageLabel] {
        try database.read { db in
            let taxonomy = try taxonomy(db)
            guard let packed = try Data.fetchOne(
                db,
                sql: "SELECT packed FROM image_labels JOIN images ON images.id = image_id WHERE path = ?",
                arguments: [path])
            else { return [] }
            return Self.imageLabels(packed: packed, taxonomy: taxonomy)
        }
    }

    /// The labels of one `image_labels.packed` blob, highest subtree confidence first.
    package static func imageLabels(packed: Data, taxonomy: TaxonomySnapshot) -> [ImageLabel] {
        var labels: [ImageLabel] = []
        packed.withUnsafeBytes { bytes in
            PackedLabels.forEach(bytes) { labelID, best, confidence in
                guard let label = taxonomy.labels[Int64(labelID)] else { return }
                labels.append(ImageLabel(
                    identifier: label.identifier,
                    confidence: confidence > 0 ? StorageFormat.confidence(confidence) : nil,
                    subtreeConfidence: StorageFormat.confidence(best),
                    isLeaf: taxonomy.children[label.id]?.isEmpty ?? true))
            }
        }
        return labels.sorted { ($1.subtreeConfidence, $0.identifier) < ($0.subtreeConfidence, $1.identifier) }
    }

    /// The stored feature print of an image (unit length, fp16 precision), or nil.
    ///
    /// ```swift
    /// let vector = try index.featurePrint(forPath: "/photos/a.jpg")
    /// ```
    public func featurePrint(forPath path: String) throws -> [Float]? {
        try database.read { db in
            try Data.fetchOne(db, sql: "SELECT feature_print FROM images WHERE path = ?", arguments: [path])
                .flatMap { FeaturePrint.decode(Array($0)) }
        }
    }
}
