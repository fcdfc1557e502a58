import TagIndex
import Foundation
import GRDB
import PostgresNIO

extension PostgresIndex {
    /// What the index holds about one file, as ``SQLiteIndex/image(atPath:)`` answers on SQLite; nil
    /// when the path is not indexed. Paths are as stored: absolute, or `NAME:/relative` in a
    /// named library.
    ///
    /// Usage: `let image = try await index.image(atPath: "photos:/2023/beach.jpg")`
    public func image(atPath path: String) async throws -> IndexedImage? {
        var binds = PostgresBindings()
        binds.append(path)
        return try await session.all("""
            SELECT images.path, images.size, images.mtime, images.content_hash, images.width, images.height,
                   models.name, models.version, images.indexed_at, images.error_stage, images.error_reason,
                   images.feature_print IS NOT NULL
            FROM images LEFT JOIN models ON models.id = images.model_id WHERE images.path = $1
            """, binds) { row in
            let (path, size, mtime, hash, width, height, name, version, indexed, stage, reason, hasPrint) = try row.decode(
                (String, Int64, Int64, String?, Int?, Int?, String?, String?, Int64, String?, String?, Bool).self)
            return IndexedImage(
                path: path, size: size, modificationTime: Timestamps.date(mtime), contentHash: hash, width: width, height: height,
                model: name.map { ModelStamp(name: $0, version: version ?? "") }, indexedAt: Timestamps.date(indexed),
                failureStage: stage, failureReason: reason, hasFeaturePrint: hasPrint)
        }.first
    }

    /// The stored labels of one file, most confident first, as ``SQLiteIndex/labels(forPath:)``.
    ///
    /// Usage: `for label in try await index.labels(forPath: path) { print(label.identifier) }`
    public func labels(forPath path: String) async throws -> [ImageLabel] {
        var binds = PostgresBindings()
        binds.append(path)
        let packed = try await session.all(
            "SELECT packed FROM image_labels JOIN images ON images.id = image_id WHERE path = $1", binds
        ) { try $0.decode(ByteBuffer.self) }
        guard let bytes = packed.first else { return [] }
        return SQLiteIndex.imageLabels(packed: Data(bytes.readableBytesView), taxonomy: try await currentTaxonomy())
    }

    /// The faces stored for one file, highest confidence first; nil when it is not indexed or
    /// faces were not looked for (as ``SQLiteIndex/faces(forPath:)``).
    ///
    /// Usage: `let faces = try await index.faces(forPath: path) ?? []`
    public func faces(forPath path: String) async throws -> [IndexedFace]? {
        var binds = PostgresBindings()
        binds.append(path)
        let stored = try await session.all(
            "SELECT faces, descriptors, content_hash FROM image_faces JOIN images ON images.id = image_id WHERE path = $1", binds
        ) { try $0.decode((ByteBuffer, ByteBuffer?, String?).self) }
        guard let row = stored.first, let faces = IndexedFace.decode(Data(row.0.readableBytesView)) else { return nil }
        var people: [Int: FacePerson] = [:]
        if let hash = row.2 { people = try await facePeople(contentHash: hash) }
        return IndexedFace.naming(IndexedFace.attaching(row.1.map { Data($0.readableBytesView) }, to: faces), people)
    }

    /// The metadata stored for one file (as ``SQLiteIndex/metadata(forPath:)``).
    ///
    /// Usage: `let taken = try await index.metadata(forPath: path)?.taken?.iso8601`
    public func metadata(forPath path: String) async throws -> IndexedMetadata? {
        var binds = PostgresBindings()
        binds.append(path)
        return try await session.all(
            "SELECT \(MetadataStorage.selectList(alias: "m")) FROM image_metadata AS m JOIN images ON images.id = m.image_id WHERE path = $1", binds
        ) { row in MetadataStorage.metadata(from: try row.map(Self.databaseValue)) }.first
    }

    /// The stored metadata of several images at once (as ``SQLiteIndex/metadata(forImageIDs:)``).
    ///
    /// Usage: `let metadata = try await index.metadata(forImageIDs: ids)`
    public func metadata(forImageIDs imageIDs: [Int64]) async throws -> [Int64: IndexedMetadata] {
        guard !imageIDs.isEmpty else { return [:] }
        var binds = PostgresBindings()
        binds.append(imageIDs)
        let rows = try await session.all(
            "SELECT m.image_id, \(MetadataStorage.selectList(alias: "m")) FROM image_metadata AS m WHERE m.image_id = ANY($1::bigint[])", binds
        ) { row in try row.map(Self.databaseValue) }
        var found: [Int64: IndexedMetadata] = [:]
        for values in rows {
            guard let id = values.first.flatMap(Int64.fromDatabaseValue) else { continue }
            found[id] = MetadataStorage.metadata(from: Array(values.dropFirst()))
        }
        return found
    }

    /// When and where the photos `query` finds were taken (as ``SQLiteIndex/whenAndWhere(_:places:)``).
    ///
    /// Usage: `let facets = try await index.whenAndWhere(query, places: 8)`
    public func whenAndWhere(_ query: Query, places: Int = 10) async throws -> WhenAndWhere {
        let candidates = try await candidateSet(query)
        let statements = WhenAndWhere.statements(places: max(0, places), dialect: PostgresDialect()) { binder in
            candidates.map { "i.id IN (\($0(binder)))" } ?? "i.error_stage IS NULL"
        }
        let months = try await session.all(statements[0].sql, statements[0].binder.postgresBindings) { row in
            let (month, count) = try row.decode((String?, Int64).self)
            return month.flatMap { WhenAndWhere.month($0, count: Int(count)) }
        }
        let countries = try await session.all(statements[1].sql, statements[1].binder.postgresBindings) { row in
            let (code, count) = try row.decode((String, Int64).self)
            return WhenAndWhere.PlaceCount(placeID: nil, countryCode: code, count: Int(count))
        }
        let towns = try await session.all(statements[2].sql, statements[2].binder.postgresBindings) { row in
            let (id, code, count) = try row.decode((Int64, String?, Int64).self)
            return WhenAndWhere.PlaceCount(placeID: Int(id), countryCode: code ?? "", count: Int(count))
        }
        return WhenAndWhere(months: months.compactMap { $0 }, countries: countries, places: towns)
    }
}
