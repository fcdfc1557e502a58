import Foundation
import GRDB

extension TagIndex {
    /// Calls `body` with one ``ExportRecord`` per image, sorted by path, streaming: records are read
    /// in pages, never all at once.
    ///
    /// Without a query every indexed file is exported, failed ones included (with no label); with
    /// one, its results (the query's own filters and calibration choose the images). `filter`
    /// chooses the labels: each label's own confidence must reach its calibrated threshold (nil:
    /// every stored label, down to ``storageFloor``). Labels a person added always pass; removed
    /// ones are absent (see ``removeLabel(_:from:)``).
    ///
    /// ```swift
    /// try index.exportRecords(matching: Query(parsing: "dog"), filter: .highPrecision) { print($0.path) }
    /// ```
    public func exportRecords(
        matching query: Query? = nil, filter: CalibratedFilter?, _ body: (ExportRecord) throws -> Void
    ) throws {
        let pageSize = 500
        guard var query else {
            var after = ""
            while true {
                let records = try guardingStorage { try database.read { db in
                    try ExportReader(db: db, taxonomy: taxonomy(db), filter: filter).records(
                        where: "i.path > ? ORDER BY i.path LIMIT ?", [after, pageSize])
                } }
                for record in records { try body(record) }
                guard records.count == pageSize, let last = records.last else { return }
                after = last.path
            }
        }
        query.sort = .path
        query.limit = pageSize
        query.facetCount = 0
        query.page = 1
        while true {
            let hits = try search(query).hits
            let ids = SQLCompiler.json(hits.map(\.imageID))
            let records = try guardingStorage { try database.read { db in
                try ExportReader(db: db, taxonomy: taxonomy(db), filter: filter).records(
                    where: "i.id IN (SELECT value FROM json_each(?)) ORDER BY i.path", [ids])
            } }
            for record in records { try body(record) }
            guard hits.count == pageSize else { return }
            query.page += 1
        }
    }
}

/// Reads export records inside one read transaction.
struct ExportReader {
    let db: Database
    let taxonomy: TaxonomySnapshot
    let filter: CalibratedFilter?

    /// Routes from the top of the taxonomy are built at most this many per label (a label with
    /// several parents at several levels could have many).
    static let maximumRoutes = 8

    func records(where condition: String, _ arguments: StatementArguments) throws -> [ExportRecord] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT i.path, i.size, i.mtime, i.indexed_at, i.width, i.height, i.content_hash,
                       m.name, m.version, i.error_stage, i.error_reason, il.packed, f.faces
                FROM images AS i LEFT JOIN models AS m ON m.id = i.model_id
                LEFT JOIN image_labels AS il ON il.image_id = i.id
                LEFT JOIN image_faces AS f ON f.image_id = i.id
                WHERE \(condition)
                """,
            arguments: arguments)
        let corrections = try db.cachedStatement(sql: "SELECT label, added, user_label FROM corrections WHERE content_hash = ?")
        var routes: [Int64: [[String]]] = [:]
        return try rows.map { row in
            let hash: String? = row[6]
            var added: [String: Bool] = [:]  // identifier -> is a user label
            var removed: [String] = []
            if let hash {
                for correction in try Row.fetchAll(corrections, arguments: [hash]) {
                    if correction[1] { added[correction[0]] = correction[2] } else { removed.append(correction[0]) }
                }
            }
            var labels: [ExportedLabel] = []
            if let packed = row[11] as Data? {
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
                        hierarchy: route(labelID, &routes), isAdded: isAdded,
                        isUserLabel: added[label.identifier] ?? false))
                }
            }
            labels.sort { ($1.confidence, $0.identifier) < ($0.confidence, $1.identifier) }
            let modelName: String? = row[7]
            return ExportRecord(
                path: row[0], size: row[1], modificationTime: Timestamps.date(row[2]), indexedAt: Timestamps.date(row[3]),
                width: row[4], height: row[5], contentHash: hash,
                model: modelName.map { ModelStamp(name: $0, version: row[8] ?? "") },
                failureStage: row[9], failureReason: row[10], labels: labels, removedLabels: removed.sorted(),
                faces: (row[12] as Data?).flatMap(IndexedFace.decode))
        }
    }

    /// The quantized threshold of a label under the export's filter; nil when it never passes.
    private func threshold(_ labelID: Int64, added: Bool) -> Int? {
        guard let filter else { return StorageFormat.floorQuantized }
        return taxonomy.calibratedThreshold(labelID, filter, added: added)
            .map { max(StorageFormat.floorQuantized, StorageFormat.quantize($0)) }
    }

    /// The routes from the top of the taxonomy to `labelID`, as display names.
    private func route(_ labelID: Int64, _ memo: inout [Int64: [[String]]]) -> [[String]] {
        if let known = memo[labelID] { return known }
        let name = taxonomy.labels[labelID]?.displayName ?? String(labelID)
        let parents = taxonomy.parents[labelID] ?? []
        var routes: [[String]] = []
        if parents.isEmpty {
            routes = [[name]]
        } else {
            for parent in parents.sorted() {
                for above in route(parent, &memo) where routes.count < Self.maximumRoutes { routes.append(above + [name]) }
            }
        }
        memo[labelID] = routes
        return routes
    }
}
