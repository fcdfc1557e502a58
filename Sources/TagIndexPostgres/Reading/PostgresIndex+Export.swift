import TagIndex
import Foundation
import PostgresNIO

extension PostgresIndex {
    /// Calls `body` with one ``ExportRecord`` per image, sorted by path (bytewise), as
    /// ``SQLiteIndex/exportRecords(matching:filter:_:)`` does on SQLite: the same records, read from
    /// the server in blocks of ``exportBlockSize`` rows, never all at once.
    ///
    /// Without a query every indexed file is exported (a keyset scan over the bytewise path
    /// index), failed ones included; with one, the query's result pages, sorted by path.
    ///
    /// Usage: `try await index.exportRecords(matching: try Query(parsing: "dog"), filter: .highPrecision) { print($0.path) }`
    public func exportRecords(
        matching query: Query? = nil, filter: CalibratedFilter?, _ body: (ExportRecord) throws -> Void
    ) async throws {
        let blockSize = Self.exportBlockSize
        var builder = ExportRecordBuilder(taxonomy: try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session)), filter: filter)
        guard var query else {
            var after: String?
            while true {
                var binds = PostgresBindings()
                binds.append(after)
                binds.append(Int64(blockSize))
                let records = try await exportBlock(
                    where: "($1::text IS NULL OR i.path COLLATE \"C\" > $1) ORDER BY i.path COLLATE \"C\" LIMIT $2", binds, &builder)
                for record in records { try body(record) }
                guard records.count == blockSize, let last = records.last else { return }
                after = last.path
            }
        }
        query = query.exportPages(of: blockSize)
        while true {
            let hits = try await search(query).hits
            var binds = PostgresBindings()
            binds.append(hits.map(\.imageID))
            let records = try await exportBlock(where: "i.id = ANY($1::bigint[]) ORDER BY i.path COLLATE \"C\"", binds, &builder)
            for record in records { try body(record) }
            guard hits.count == blockSize else { return }
            query.page += 1
        }
    }

    /// Rows an export reads from the server at a time.
    static let exportBlockSize = 500

    /// The records of one block of images (`condition` orders and limits them), with the
    /// corrections of their contents read in one more statement.
    private func exportBlock(where condition: String, _ binds: PostgresBindings, _ builder: inout ExportRecordBuilder) async throws -> [ExportRecord] {
        let images = try await session.all(ExportRecordBuilder.selection(where: condition), binds) { row in
            let (path, size, mtime, indexedAt, width, height, hash, modelName, modelVersion, stage, reason, packed, faces) = try row.decode(
                (String, Int64, Int64, Int64, Int?, Int?, String?, String?, String?, String?, String?, ByteBuffer?, ByteBuffer?).self)
            return ExportRecordBuilder.StoredImage(
                path: path, size: size, mtime: mtime, indexedAt: indexedAt, width: width, height: height, contentHash: hash,
                modelName: modelName, modelVersion: modelVersion, failureStage: stage, failureReason: reason,
                packedLabels: packed.map { Data($0.readableBytesView) }, faces: faces.map { Data($0.readableBytesView) })
        }
        let hashes = Array(Set(images.compactMap(\.contentHash))).sorted()
        var corrections: [String: [ExportRecordBuilder.Correction]] = [:]
        if !hashes.isEmpty {
            var hashBinds = PostgresBindings()
            hashBinds.append(hashes)
            for (hash, label, added, userLabel) in try await session.all(
                "SELECT content_hash, label, added, user_label FROM corrections WHERE content_hash = ANY($1::text[])", hashBinds,
                { try $0.decode((String, String, Bool, Bool).self) })
            {
                corrections[hash, default: []].append(ExportRecordBuilder.Correction(label: label, added: added, isUserLabel: userLabel))
            }
        }
        var people: [String: [Int: FacePerson]] = [:]
        if !hashes.isEmpty {
            var hashBinds = PostgresBindings()
            hashBinds.append(hashes)
            let rows = try await session.all(PeopleSchema.facePeopleOfContents("$1::text[]"), hashBinds) {
                try $0.decode((String, Int64, Int64, String?).self)
            }
            for (hash, number, id, name) in rows { people[hash, default: [:]][Int(number)] = FacePerson(id: id, name: name) }
        }
        return images.map { image in
            builder.record(
                image, corrections: image.contentHash.flatMap { corrections[$0] } ?? [], people: image.contentHash.flatMap { people[$0] } ?? [:])
        }
    }
}
