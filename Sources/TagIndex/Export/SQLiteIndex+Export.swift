import Foundation
import GRDB

extension SQLiteIndex {
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
        query = query.exportPages(of: pageSize)
        while true {
            let hits = try search(query).hits
            let ids = SQLiteDialect.json(hits.map(\.imageID))
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
package struct ExportReader {
    let db: Database
    let taxonomy: TaxonomySnapshot
    let filter: CalibratedFilter?

    func records(where condition: String, _ arguments: StatementArguments) throws -> [ExportRecord] {
        let rows = try Row.fetchAll(
            db,
            sql: ExportRecordBuilder.selection(where: condition),
            arguments: arguments)
        let corrections = try db.cachedStatement(sql: "SELECT label, added, user_label FROM corrections WHERE content_hash = ?")
        var builder = ExportRecordBuilder(taxonomy: taxonomy, filter: filter)
        return try rows.map { row in
            let hash: String? = row[6]
            let stored = try hash.map { hash in
                try Row.fetchAll(corrections, arguments: [hash]).map {
                    ExportRecordBuilder.Correction(label: $0[0], added: $0[1], isUserLabel: $0[2])
                }
            } ?? []
            return builder.record(
                ExportRecordBuilder.StoredImage(
                    path: row[0], size: row[1], mtime: row[2], indexedAt: row[3], width: row[4], height: row[5], contentHash: hash,
                    modelName: row[7], modelVersion: row[8], failureStage: row[9], failureReason: row[10],
                    packedLabels: row[11], faces: row[12]),
                corrections: stored, people: try hash.map { try SQLiteIndex.facePeople(contentHash: $0, db) } ?? [:])
        }
    }
}

extension Query {
    /// The query an export pages through on either backend: sorted by path, `limit` results a
    /// page, no facets, from the first page.
    package func exportPages(of limit: Int) -> Query {
        var query = self
        query.sort = .path
        query.limit = limit
        query.facetCount = 0
        query.page = 1
        return query
    }
}
