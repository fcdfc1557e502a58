import Foundation
import GRDB

/// The stored metadata: table `image_metadata` (migration v6, both backends), one row per image
/// whose metadata was read. Every column but the key is nullable; dates are text in the photo's
/// own local time (`taken_local`, compared as text: ISO order is date order) with the offset in
/// minutes and the UTC instant in microseconds when the offset is known; `taken_sort` orders
/// `--sort taken` (see ``TakenDate/sortKey``).
package enum MetadataStorage {
    /// The columns, key first, in the order of ``values(of:)``.
    package static let columns = [
        "image_id", "taken_local", "taken_offset", "taken_source", "taken_offset_source", "taken_utc",
        "latitude", "longitude", "altitude", "camera_make", "camera_model", "lens",
        "place_id", "country_code", "admin1_code", "taken_sort",
    ]

    /// The table, in the SQL both backends share (PostgreSQL spells the types its own way).
    package static func createTable(integer: String, real: String) -> [String] {
        [
            """
            CREATE TABLE image_metadata(
                image_id \(integer) PRIMARY KEY REFERENCES images(id) ON DELETE CASCADE,
                taken_local TEXT, taken_offset INTEGER, taken_source TEXT, taken_offset_source TEXT, taken_utc \(integer),
                latitude \(real), longitude \(real), altitude \(real),
                camera_make TEXT, camera_model TEXT, lens TEXT,
                place_id \(integer), country_code TEXT, admin1_code TEXT, taken_sort \(integer))
            """,
            "CREATE INDEX image_metadata_by_taken ON image_metadata(taken_local)",
            "CREATE INDEX image_metadata_by_place ON image_metadata(place_id)",
            "CREATE INDEX image_metadata_by_country ON image_metadata(country_code, admin1_code)",
        ]
    }

    /// The values after `image_id`, in column order.
    package static func values(of metadata: IndexedMetadata) -> [DatabaseValue] {
        let taken = metadata.taken
        return [
            taken?.local.databaseValue ?? .null,
            taken?.utcOffsetMinutes.databaseValue ?? .null,
            taken?.source.rawValue.databaseValue ?? .null,
            taken?.offsetSource?.rawValue.databaseValue ?? .null,
            taken?.instant.map { Timestamps.microseconds($0) }.databaseValue ?? .null,
            metadata.latitude.databaseValue, metadata.longitude.databaseValue, metadata.altitude.databaseValue,
            metadata.cameraMake.databaseValue, metadata.cameraModel.databaseValue, metadata.lens.databaseValue,
            metadata.place.map { Int64($0.id) }.databaseValue,
            metadata.place?.countryCode.databaseValue ?? .null, metadata.place?.admin1Code.databaseValue ?? .null,
            taken?.sortKey.databaseValue ?? .null,
        ]
    }

    /// The metadata of a row's values after `image_id` (as ``values(of:)`` wrote them); values of
    /// the wrong type read as unknown.
    package static func metadata(from values: [DatabaseValue]) -> IndexedMetadata {
        func text(_ index: Int) -> String? { index < values.count ? String.fromDatabaseValue(values[index]) : nil }
        func integer(_ index: Int) -> Int64? { index < values.count ? Int64.fromDatabaseValue(values[index]) : nil }
        func real(_ index: Int) -> Double? { index < values.count ? Double.fromDatabaseValue(values[index]) : nil }
        var metadata = IndexedMetadata(
            latitude: real(5), longitude: real(6), altitude: real(7), cameraMake: text(8), cameraModel: text(9), lens: text(10))
        if let local = text(0), let source = text(2).flatMap(TakenDate.Source.init(rawValue:)) {
            metadata.taken = TakenDate(
                local: local, utcOffsetMinutes: integer(1).map { Int($0) }, source: source,
                offsetSource: text(3).flatMap(TakenDate.OffsetSource.init(rawValue:)))
        }
        if let id = integer(11), let country = text(12) {
            metadata.place = PlaceReference(id: Int(id), countryCode: country, admin1Code: text(13) ?? "")
        }
        return metadata
    }

    /// The columns after the key, for a SELECT (`m.taken_local, ...`).
    package static func selectList(alias: String) -> String {
        columns.dropFirst().map { "\(alias).\($0)" }.joined(separator: ", ")
    }
}

extension BatchWriter {
    /// Replaces the metadata of an image; nil removes it (not read).
    mutating func storeMetadata(_ imageID: Int64, _ metadata: IndexedMetadata?) throws {
        try db.cachedStatement(sql: "DELETE FROM image_metadata WHERE image_id = ?").execute(arguments: [imageID])
        guard let metadata else { return }
        let placeholders = Array(repeating: "?", count: MetadataStorage.columns.count).joined(separator: ", ")
        try db.cachedStatement(sql: "INSERT INTO image_metadata(\(MetadataStorage.columns.joined(separator: ", "))) VALUES (\(placeholders))")
            .execute(arguments: StatementArguments([imageID.databaseValue] + MetadataStorage.values(of: metadata)))
    }

    /// Copies the metadata of `sourceID` onto `targetID` (same content).
    mutating func copyMetadata(from sourceID: Int64, to targetID: Int64) throws {
        let rest = MetadataStorage.columns.dropFirst().joined(separator: ", ")
        try db.execute(sql: "DELETE FROM image_metadata WHERE image_id = ?", arguments: [targetID])
        try db.execute(
            sql: "INSERT INTO image_metadata(image_id, \(rest)) SELECT ?, \(rest) FROM image_metadata WHERE image_id = ?",
            arguments: [targetID, sourceID])
    }
}

extension SQLiteIndex {
    /// The metadata stored for an image; nil when the image is not indexed or its metadata was
    /// not read yet.
    ///
    /// Usage: `let taken = try index.metadata(forPath: "/photos/a.jpg")?.taken?.iso8601`
    public func metadata(forPath path: String) throws -> IndexedMetadata? {
        try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT \(MetadataStorage.selectList(alias: "m")) FROM image_metadata AS m JOIN images ON images.id = m.image_id WHERE path = ?",
                arguments: [path]
            ).map { row in MetadataStorage.metadata(from: Array(row.databaseValues)) }
        }
    }

    /// The stored metadata of several images at once; images without any are left out.
    ///
    /// Usage: `let metadata = try index.metadata(forImageIDs: page.hits.map(\.imageID))`
    public func metadata(forImageIDs imageIDs: [Int64]) throws -> [Int64: IndexedMetadata] {
        try database.read { db in
            var found: [Int64: IndexedMetadata] = [:]
            for chunk in stride(from: 0, to: imageIDs.count, by: 500).map({ Array(imageIDs[$0..<min($0 + 500, imageIDs.count)]) }) {
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ", ")
                for row in try Row.fetchAll(
                    db, sql: "SELECT m.image_id, \(MetadataStorage.selectList(alias: "m")) FROM image_metadata AS m WHERE m.image_id IN (\(placeholders))",
                    arguments: StatementArguments(chunk))
                {
                    let values = Array(row.databaseValues)
                    found[row[0]] = MetadataStorage.metadata(from: Array(values.dropFirst()))
                }
            }
            return found
        }
    }
}
