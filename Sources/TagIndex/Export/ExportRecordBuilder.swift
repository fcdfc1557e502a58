import Foundation

/// Turns an image's stored row and the corrections of its content into its ``ExportRecord``:
/// the labels the export's filter keeps, corrections applied, with their taxonomy routes. Both
/// backends read the rows their own way and build records here, so they export the same.
package struct ExportRecordBuilder {
    /// The columns an export reads of one image.
    package struct StoredImage {
        var path: String
        var size: Int64
        var mtime: Int64
        var indexedAt: Int64
        var width: Int?
        var height: Int?
        package var contentHash: String?
        var modelName: String?
        var modelVersion: String?
        var failureStage: String?
        var failureReason: String?
        var packedLabels: Data?
        var faces: Data?

        /// The columns of ``selection(where:)``, in order, as a backend decoded them.
        package init(
            path: String, size: Int64, mtime: Int64, indexedAt: Int64, width: Int?, height: Int?, contentHash: String?,
            modelName: String?, modelVersion: String?, failureStage: String?, failureReason: String?, packedLabels: Data?, faces: Data?
        ) {
            (self.path, self.size, self.mtime, self.indexedAt, self.width, self.height, self.contentHash) =
                (path, size, mtime, indexedAt, width, height, contentHash)
            (self.modelName, self.modelVersion, self.failureStage, self.failureReason, self.packedLabels, self.faces) =
                (modelName, modelVersion, failureStage, failureReason, packedLabels, faces)
        }
    }

    /// One stored correction of the image's content.
    package struct Correction {
        package var label: String
        package var added: Bool
        package var isUserLabel: Bool

        /// Usage: `ExportRecordBuilder.Correction(label: "dog", added: true, isUserLabel: false)`
        package init(label: String, added: Bool, isUserLabel: Bool) {
            (self.label, self.added, self.isUserLabel) = (label, added, isUserLabel)
        }
    }

    /// The statement that reads the ``StoredImage`` columns, in their order, of the images
    /// `condition` (which may order and limit them) keeps: the same text in both dialects.
    package static func selection(where condition: String) -> String {
        """
        SELECT i.path, i.size, i.mtime, i.indexed_at, i.width, i.height, i.content_hash,
               m.name, m.version, i.error_stage, i.error_reason, il.packed, f.faces
        FROM images AS i LEFT JOIN models AS m ON m.id = i.model_id
        LEFT JOIN image_labels AS il ON il.image_id = i.id
        LEFT JOIN image_faces AS f ON f.image_id = i.id
        WHERE \(condition)
        """
    }

    let taxonomy: TaxonomySnapshot
    let filter: CalibratedFilter?
    private var routes: [Int64: [[String]]] = [:]

    /// Routes from the top of the taxonomy are built at most this many per label (a label with
    /// several parents at several levels could have many).
    static let maximumRoutes = 8

    package init(taxonomy: TaxonomySnapshot, filter: CalibratedFilter?) {
        self.taxonomy = taxonomy
        self.filter = filter
    }

    package mutating func record(_ image: StoredImage, corrections: [Correction], people: [Int: FacePerson] = [:]) -> ExportRecord {
        var added: [String: Bool] = [:]  // identifier -> is a user label
        var removed: [String] = []
        for correction in corrections {
            if correction.added { added[correction.label] = correction.isUserLabel } else { removed.append(correction.label) }
        }
        var labels: [ExportedLabel] = []
        if let packed = image.packedLabels {
            var kept: [(Int64, Int)] = []
            packed.withUnsafeBytes { bytes in
                PackedLabels.forEach(bytes) { labelID, _, confidence in
                    guard confidence > 0, let identifier = taxonomy.labels[Int64(labelID)]?.identifier,
                        let threshold = threshold(Int64(labelID), added: added[identifier] != nil)
                    else { return }
                    if confidence >= threshold { kept.append((Int64(labelID), confidence)) }
                }
            }
            for (labelID, confidence) in kept {
                guard let label = taxonomy.labels[labelID] else { continue }
                let isAdded = added[label.identifier] != nil && confidence == CorrectionRules.certain
                labels.append(ExportedLabel(
                    identifier: label.identifier, displayName: label.displayName,
                    confidence: StorageFormat.confidence(confidence),
                    hierarchy: route(labelID), isAdded: isAdded,
                    isUserLabel: added[label.identifier] ?? false))
            }
        }
        labels.sort { ($1.confidence, $0.identifier) < ($0.confidence, $1.identifier) }
        return ExportRecord(
            path: image.path, size: image.size, modificationTime: Timestamps.date(image.mtime),
            indexedAt: Timestamps.date(image.indexedAt), width: image.width, height: image.height, contentHash: image.contentHash,
            model: image.modelName.map { ModelStamp(name: $0, version: image.modelVersion ?? "") },
            failureStage: image.failureStage, failureReason: image.failureReason, labels: labels, removedLabels: removed.sorted(),
            faces: image.faces.flatMap(IndexedFace.decode).map { IndexedFace.naming($0, people) })
    }

    /// The quantized threshold of a label under the export's filter; nil when it never passes.
    private func threshold(_ labelID: Int64, added: Bool) -> Int? {
        guard let filter else { return StorageFormat.floorQuantized }
        return taxonomy.calibratedThreshold(labelID, filter, added: added)
            .map { max(StorageFormat.floorQuantized, StorageFormat.quantize($0)) }
    }

    /// The routes from the top of the taxonomy to `labelID`, as display names.
    private mutating func route(_ labelID: Int64) -> [[String]] {
        if let known = routes[labelID] { return known }
        let name = taxonomy.labels[labelID]?.displayName ?? String(labelID)
        let parents = taxonomy.parents[labelID] ?? []
        var found: [[String]] = []
        if parents.isEmpty {
            found = [[name]]
        } else {
            for parent in parents.sorted() {
                for above in route(parent) where found.count < Self.maximumRoutes { found.append(above + [name]) }
            }
        }
        routes[labelID] = found
        return found
    }
}
