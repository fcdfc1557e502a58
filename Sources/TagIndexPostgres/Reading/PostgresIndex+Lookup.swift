import TagIndex
import Foundation
import PostgresNIO

/// What a browser of the index reads on PostgreSQL, as ``SQLiteIndex`` answers it on SQLite (see
/// `Lookup/`): images by id, labels of many images at once, the taxonomy as a catalog and as
/// completions, and a version for caches. The answers are built by the same code as SQLite's
/// from the same stored rows.
extension PostgresIndex {
    /// The stored path of the image with id `imageID`, or nil (as ``SQLiteIndex/imagePath(forID:)``).
    ///
    /// Usage: `if let path = try await index.imagePath(forID: hit.imageID) { print(path) }`
    public func imagePath(forID imageID: Int64) async throws -> String? {
        var binds = PostgresBindings()
        binds.append(imageID)
        return try await session.all("SELECT path FROM images WHERE id = $1", binds) { try $0.decode(String.self) }.first
    }

    /// The stored labels of several images in one read (as ``SQLiteIndex/labels(forImageIDs:)``).
    ///
    /// Usage: `let labels = try await index.labels(forImageIDs: page.hits.map(\.imageID))`
    public func labels(forImageIDs imageIDs: [Int64]) async throws -> [Int64: [ImageLabel]] {
        guard !imageIDs.isEmpty else { return [:] }
        let taxonomy = try await currentTaxonomy()
        var binds = PostgresBindings()
        binds.append(imageIDs)
        var labels: [Int64: [ImageLabel]] = [:]
        for (id, packed) in try await session.all(
            "SELECT image_id, packed FROM image_labels WHERE image_id = ANY($1::bigint[])", binds, { try $0.decode((Int64, ByteBuffer).self) })
        {
            labels[id] = SQLiteIndex.imageLabels(packed: Data(packed.readableBytesView), taxonomy: taxonomy)
        }
        return labels
    }

    /// The stored dominant colors of an image, heaviest first (as ``SQLiteIndex/dominantColors(forPath:)``).
    ///
    /// Usage: `let colors = try await index.dominantColors(forPath: "photos:/a.jpg")`
    public func dominantColors(forPath path: String) async throws -> [IndexedColor] {
        var binds = PostgresBindings()
        binds.append(path)
        let stored = try await session.all("SELECT dominant_colors FROM images WHERE path = $1", binds) { try $0.decode(ByteBuffer?.self) }
        guard let bytes = stored.first ?? nil else { return [] }
        return bytes.withUnsafeReadableBytes(IndexedColor.decode)
    }

    /// Every label of the stored taxonomy with its place and image count (as ``SQLiteIndex/labelCatalog()``).
    ///
    /// Usage: `let roots = try await index.labelCatalog().filter { $0.parents.isEmpty }`
    public func labelCatalog() async throws -> [CatalogLabel] {
        CatalogLabel.catalog(taxonomy: try await currentTaxonomy(), imageCounts: try await imageCountsByLabelID())
    }

    /// Labels and vocabulary words completing `prefix` (as ``SQLiteIndex/labelCompletions(forPrefix:limit:)``).
    ///
    /// Usage: `let completions = try await index.labelCompletions(forPrefix: "retr", limit: 5)`
    public func labelCompletions(forPrefix prefix: String, limit: Int = 8) async throws -> [LabelCompletion] {
        guard !TermText.normalize(prefix).isEmpty, limit > 0 else { return [] }
        return LabelCompletion.ranked(
            forPrefix: prefix, limit: limit, taxonomy: try await currentTaxonomy(), imageCounts: try await imageCountsByLabelID())
    }

    /// A value that changes whenever an index run adds, re-classifies or removes a file (as
    /// ``SQLiteIndex/contentVersion()``).
    ///
    /// Usage: `if try await index.contentVersion() != cachedVersion { recompute() }`
    public func contentVersion() async throws -> IndexContentVersion {
        let row = try await session.all("SELECT COUNT(*), COALESCE(MAX(indexed_at), 0), COALESCE(MAX(id), 0) FROM images") {
            try $0.decode((Int64, Int64, Int64).self)
        }
        let (count, lastIndexed, highestID) = row.first ?? (0, 0, 0)
        return IndexContentVersion(imageCount: Int(count), lastIndexed: lastIndexed, highestID: highestID)
    }

    /// The stored taxonomy, rebuilt only when its generation changed since the last read.
    func currentTaxonomy() async throws -> TaxonomySnapshot {
        let generation = try await PostgresTaxonomy.generation(session)
        if let cached = taxonomyCache.withLock({ $0 }), cached.taxonomy.generation == generation { return cached.taxonomy }
        let taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
        taxonomyCache.withLock { $0 = (taxonomy, LabelTextIndex(taxonomy)) }
        return taxonomy
    }

    /// `labels.image_count` of every label with at least one image, by label id.
    func imageCountsByLabelID() async throws -> [Int64: Int] {
        var counts: [Int64: Int] = [:]
        let rows = try await session.all("SELECT id, image_count FROM labels WHERE image_count > 0") { try $0.decode((Int64, Int64).self) }
        for (id, count) in rows { counts[id] = Int(count) }
        return counts
    }
}
