import Foundation
import GRDB

/// What the index knows about one file.
///
/// ```swift
/// if let image = try index.image(atPath: "/photos/a.jpg") { print(image.width ?? 0, image.model?.description ?? "-") }
/// ```
public struct IndexedImage: Sendable, Hashable {
    public var path: String
    public var size: Int64
    public var modificationTime: Date
    /// `ContentHash` of the bytes, when the file could be read.
    public var contentHash: String?
    public var width: Int?
    public var height: Int?
    /// The model that produced the labels (or the failure).
    public var model: ModelStamp?
    public var indexedAt: Date
    /// For a file that could not be classified: the stage that failed and why.
    public var failureStage: String?
    public var failureReason: String?
    /// Whether a feature print is stored.
    public var hasFeaturePrint: Bool

    /// Memberwise, for the backends of this package.
    package init(path: String, size: Int64, modificationTime: Date, contentHash: String?, width: Int?, height: Int?, model: ModelStamp?, indexedAt: Date, failureStage: String?, failureReason: String?, hasFeaturePrint: Bool) {
        self.path = path
        self.size = size
        self.modificationTime = modificationTime
        self.contentHash = contentHash
        self.width = width
        self.height = height
        self.model = model
        self.indexedAt = indexedAt
        self.failureStage = failureStage
        self.failureReason = failureReason
        self.hasFeaturePrint = hasFeaturePrint
    }
}

/// One model stamp found in the index and how many files it produced.
///
/// ```swift
/// for usage in try index.modelUsage() { print(usage.model, usage.imageCount) }
/// ```
public struct ModelUsage: Sendable, Hashable {
    public var model: ModelStamp
    public var imageCount: Int

    /// Memberwise, for the backends of this package.
    package init(model: ModelStamp, imageCount: Int) {
        self.model = model
        self.imageCount = imageCount
    }
}

extension SQLiteIndex {
    /// The stored facts of the file at `path`, or nil when it is not indexed.
    ///
    /// ```swift
    /// let image = try index.image(atPath: "/photos/a.jpg")
    /// ```
    public func image(atPath path: String) throws -> IndexedImage? {
        try database.read { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT images.path, images.size, images.mtime, images.content_hash, images.width, images.height,
                       models.name, models.version, images.indexed_at, images.error_stage, images.error_reason,
                       images.feature_print IS NOT NULL
                FROM images LEFT JOIN models ON models.id = images.model_id
                WHERE images.path = ?
                """, arguments: [path])
            else { return nil }
            let name: String? = row[6], version: String? = row[7]
            return IndexedImage(
                path: row[0], size: row[1], modificationTime: Timestamps.date(row[2]), contentHash: row[3],
                width: row[4], height: row[5], model: name.map { ModelStamp(name: $0, version: version ?? "") },
                indexedAt: Timestamps.date(row[8]), failureStage: row[9], failureReason: row[10], hasFeaturePrint: row[11])
        }
    }

    /// For every label with at least one image: how many indexed images carry it (itself or a label
    /// below it) at or above the storage floor.
    ///
    /// ```swift
    /// let counts = try index.labelImageCounts()   // ["dog": 120, "golden_retriever": 14, ...]
    /// ```
    public func labelImageCounts() throws -> [String: Int] {
        try database.read { db in
            var counts: [String: Int] = [:]
            let rows = try Row.fetchCursor(db, sql: "SELECT labels.identifier, COUNT(*) FROM observations JOIN labels ON labels.id = observations.label_id GROUP BY observations.label_id")
            while let row = try rows.next() { counts[row[0]] = row[1] }
            return counts
        }
    }

    /// The model stamps that produced the indexed files, most used first.
    ///
    /// ```swift
    /// let models = try index.modelUsage()
    /// ```
    public func modelUsage() throws -> [ModelUsage] {
        try database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT models.name, models.version, COUNT(images.id) AS n FROM models
                JOIN images ON images.model_id = models.id GROUP BY models.id ORDER BY n DESC
                """).map { ModelUsage(model: ModelStamp(name: $0[0], version: $0[1]), imageCount: $0[2]) }
        }
    }
}

extension SQLiteIndex {
    /// Whether any label has a precision/recall curve, i.e. whether calibrated filters can keep
    /// anything in this index.
    ///
    /// ```swift
    /// if try index.hasCalibration() { query.calibration = .highRecall }
    /// ```
    public func hasCalibration() throws -> Bool {
        try database.read { db in try Bool.fetchOne(db, sql: "SELECT EXISTS(SELECT 1 FROM labels WHERE curve_id IS NOT NULL)") ?? false }
    }
}
