import Foundation

/// What every backend does the same once its database has answered: the facets of a result set
/// from per-label counts, and the page's hits from the image rows, in the ranked order. A new field
/// of a hit is one column in ``hitColumns`` and one field of ``HitRow``.
///
/// Usage:
/// ```swift
/// let sql = "SELECT \(ResultAssembly.hitColumns) FROM images WHERE " + dialect.isMember("id", of: ids, binder)
/// let hits = ResultAssembly.hits(scored, rows: rows)
/// ```
package enum ResultAssembly {
    /// The columns of `images` a hit is made of, in ``HitRow``'s order.
    package static let hitColumns = "id, path, size, mtime, width, height, error_stage, error_reason"

    /// One row of ``hitColumns``, as a backend decodes it.
    package struct HitRow: Sendable {
        package var id: Int64
        package var path: String
        package var size: Int64
        /// Modification time in the stored unit (see ``Timestamps``).
        package var mtime: Int64
        package var width: Int?
        package var height: Int?
        package var errorStage: String?
        package var errorReason: String?

        /// Usage: `HitRow(id: 1, path: "/a.jpg", size: 10, mtime: 0, width: nil, height: nil, errorStage: nil, errorReason: nil)`
        package init(
            id: Int64, path: String, size: Int64, mtime: Int64, width: Int?, height: Int?, errorStage: String?, errorReason: String?
        ) {
            self.id = id
            self.path = path
            self.size = size
            self.mtime = mtime
            self.width = width
            self.height = height
            self.errorStage = errorStage
            self.errorReason = errorReason
        }
    }

    /// The hits of `scored`, in its order, from the rows read (an id without a row, removed
    /// meanwhile, is left out).
    ///
    /// Usage: `let hits = ResultAssembly.hits(scored, rows: rows)`
    package static func hits(_ scored: [(id: Int64, score: Double)], rows: [HitRow]) -> [SearchHit] {
        var byID: [Int64: HitRow] = [:]
        for row in rows { byID[row.id] = row }
        return scored.compactMap { id, score in
            guard let row = byID[id] else { return nil }
            return SearchHit(
                imageID: id, path: row.path, score: score, size: row.size, modificationTime: Timestamps.date(row.mtime),
                width: row.width, height: row.height, failureStage: row.errorStage, failureReason: row.errorReason)
        }
    }

    /// The `limit` most frequent labels of (label id, images) counts, most frequent first, then by
    /// identifier; labels without images or unknown to the taxonomy are left out.
    ///
    /// Usage: `let facets = ResultAssembly.facets(counts, taxonomy: taxonomy, limit: query.facetCount)`
    package static func facets(_ counts: some Sequence<(labelID: Int64, count: Int)>, taxonomy: TaxonomySnapshot, limit: Int) -> [Facet] {
        counts
            .compactMap { labelID, count -> Facet? in
                guard count > 0, let label = taxonomy.labels[labelID] else { return nil }
                return Facet(identifier: label.identifier, displayName: label.displayName, count: count)
            }
            .sorted { ($1.count, $0.identifier) < ($0.count, $1.identifier) }
            .prefix(limit)
            .map { $0 }
    }
}
