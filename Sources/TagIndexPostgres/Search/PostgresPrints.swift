import TagIndex
import PostgresNIO

/// Reads feature prints from PostgreSQL for similar images and near-duplicates: the compacted,
/// uncompressed copies in `image_prints` and their sketches in `print_sketches` where their block
/// is clean, `images.feature_print` where it changed since the last compaction (see
/// ``PostgresPostings``). Reading uncompressed prints saves the server most of its work
/// (decompressing 100,000 prints took it 570 ms); the client's cost is receiving the bytes, which
/// the sketches cut to a quarter (see ``PrintSketch``).
///
/// Usage:
/// ```swift
/// try await PostgresPrints.forEachBlock(candidates: nil, session) { ids, prints in ... }
/// try await PostgresPrints.forEachSketchBlock(blocks: nil, session, sketches: { ids, sketches in ... }, prints: { ids, prints in ... })
/// ```
enum PostgresPrints {
    /// The most prints one call of the body receives.
    static let blockSize = 1 << Postings.blockShift

    /// Calls `body(ids, prints)` for each block in id order: `ids` ascending, `prints` their
    /// prints back to back (``FeaturePrint/dimension`` half floats each). Only prints of the
    /// stored size are read. `candidates` (sorted ids) narrows the images; nil reads them all.
    static func forEachBlock(
        candidates: [Int64]?, _ session: PostgresSession,
        _ body: ([Int64], UnsafeRawBufferPointer) throws -> Void
    ) async throws {
        let bytes = Int64(FeaturePrint.dimension * 2)
        let shift = Postings.blockShift
        // One block's prints: the compacted copy when the block is clean, else `images`.
        let select = """
            SELECT image_id, print FROM image_prints
            WHERE image_id >= $1 AND image_id < $2 AND octet_length(print) = $3 AND image_id = ANY(COALESCE($4, ARRAY[image_id]))
                AND NOT EXISTS (SELECT 1 FROM changed_blocks WHERE block = $1 >> \(shift))
            UNION ALL
            SELECT id, feature_print FROM images
            WHERE id >= $1 AND id < $2 AND octet_length(feature_print) = $3 AND id = ANY(COALESCE($4, ARRAY[id]))
                AND EXISTS (SELECT 1 FROM changed_blocks WHERE block = $1 >> \(shift))
            ORDER BY 1
            """
        var ids: [Int64] = []
        var prints: [UInt8] = []
        let blocks: [Int64]
        if let candidates {
            blocks = Array(Set(candidates.map { $0 >> Int64(shift) })).sorted()
        } else {
            let largest = try await session.all("SELECT COALESCE(MAX(id), 0) FROM images") { try $0.decode(Int64.self) }.first ?? 0
            blocks = Array(0...(largest >> Int64(shift)))
        }
        var candidateIndex = 0
        for block in blocks {
            let low = block << Int64(shift), high = (block + 1) << Int64(shift)
            var binds = PostgresBindings()
            binds.append(low)
            binds.append(high)
            binds.append(bytes)
            if let candidates {
                var inBlock: [Int64] = []
                while candidateIndex < candidates.count, candidates[candidateIndex] < high {
                    if candidates[candidateIndex] >= low { inBlock.append(candidates[candidateIndex]) }
                    candidateIndex += 1
                }
                binds.append(inBlock)
            } else {
                binds.append(Optional<[Int64]>.none)
            }
            ids.removeAll(keepingCapacity: true)
            prints.removeAll(keepingCapacity: true)
            _ = try await session.all(select, binds) { row in
                let (id, print) = try row.decode((Int64, ByteBuffer).self)
                ids.append(id)
                prints.append(contentsOf: print.readableBytesView)
            }
            guard !ids.isEmpty else { continue }
            try prints.withUnsafeBytes { try body(ids, $0) }
        }
    }

    /// Calls `sketches(ids, sketches)` for each clean block's sketches (``PrintSketch/byteCount``
    /// bytes each, in the order of `ids`, ascending) and `prints(ids, prints)` for the prints of
    /// changed blocks (read from `images`, up to ``blockSize`` at a time), all read by one
    /// statement, so at one snapshot: each image with a stored print is in exactly one of them.
    /// `blocks` (ascending) narrows the blocks read; nil reads all.
    static func forEachSketchBlock(
        blocks: [Int64]?, _ session: PostgresSession,
        sketches: ([Int64], UnsafeRawBufferPointer) throws -> Void,
        prints: ([Int64], UnsafeRawBufferPointer) throws -> Void
    ) async throws {
        let shift = Postings.blockShift
        var binds = PostgresBindings()
        binds.append(Int64(FeaturePrint.dimension * 2))
        binds.append(blocks)
        var batch = Batch()
        var ids: [Int64] = []
        _ = try await session.all("""
            WITH changed AS (SELECT DISTINCT block FROM changed_blocks WHERE $2::bigint[] IS NULL OR block = ANY($2))
            SELECT NULL::bigint, s.ids, s.sketches FROM print_sketches AS s
            WHERE s.block NOT IN (SELECT block FROM changed) AND ($2::bigint[] IS NULL OR s.block = ANY($2))
            UNION ALL
            SELECT i.id, NULL::bytea, i.feature_print FROM changed AS c
            JOIN images AS i ON i.id >= c.block << \(shift) AND i.id < (c.block + 1) << \(shift)
            WHERE octet_length(i.feature_print) = $1
            """, binds
        ) { row in
            let (id, packedIDs, data) = try row.decode((Int64?, ByteBuffer?, ByteBuffer).self)
            if let id {
                try batch.append(id, data, prints)
            } else if let packedIDs {
                ids.removeAll(keepingCapacity: true)
                packedIDs.withUnsafeReadableBytes { raw in
                    for offset in stride(from: 0, to: raw.count, by: 8) {
                        ids.append(Int64(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int64.self)))
                    }
                }
                guard data.readableBytes == ids.count * PrintSketch.byteCount else {
                    throw TagIndexError.storage(
                        path: session.descriptor.description,
                        reason: "a row of print_sketches holds \(data.readableBytes) bytes for \(ids.count) images: the stored sketches are damaged")
                }
                try data.withUnsafeReadableBytes { try sketches(ids, $0) }
            }
        }
        try batch.flush(prints)
    }

    /// Calls `body(ids, prints)` with the compacted prints of `ids` (clean blocks' images), up to
    /// ``blockSize`` at a time, in no particular order.
    static func forEachPrint(ids: [Int64], _ session: PostgresSession, _ body: ([Int64], UnsafeRawBufferPointer) throws -> Void) async throws {
        guard !ids.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(ids)
        binds.append(Int64(FeaturePrint.dimension * 2))
        var batch = Batch()
        _ = try await session.all(
            "SELECT image_id, print FROM image_prints WHERE image_id = ANY($1::bigint[]) AND octet_length(print) = $2", binds
        ) { row in
            let (id, print) = try row.decode((Int64, ByteBuffer).self)
            try batch.append(id, print, body)
        }
        try batch.flush(body)
    }

    /// Rebuilds the sketches of `blocks` from their compacted prints in `image_prints` (part of a
    /// compaction, in its transaction).
    static func writeSketches(ofBlocks blocks: [Int64], _ session: PostgresSession) async throws {
        var delete = PostgresBindings()
        delete.append(blocks)
        try await session.execute("DELETE FROM print_sketches WHERE block = ANY($1::bigint[])", delete)
        let shift = Int64(Postings.blockShift)
        var written: [Int64] = [], writtenIDs: [ByteBuffer] = [], writtenSketches: [ByteBuffer] = []
        var ids: [Int64] = []
        var halves: [UInt8] = []  // binary16, little-endian, as the kernels read them
        for block in blocks {
            var binds = PostgresBindings()
            binds.append(block << shift)
            binds.append((block + 1) << shift)
            binds.append(Int64(FeaturePrint.dimension * 2))
            ids.removeAll(keepingCapacity: true)
            halves.removeAll(keepingCapacity: true)
            _ = try await session.all("""
                SELECT image_id, print FROM image_prints
                WHERE image_id >= $1 AND image_id < $2 AND octet_length(print) = $3 ORDER BY image_id
                """, binds
            ) { row in
                let (id, print) = try row.decode((Int64, ByteBuffer).self)
                ids.append(id)
                halves.append(contentsOf: print.readableBytesView)
            }
            guard !ids.isEmpty else { continue }
            var packedIDs = ByteBuffer()
            packedIDs.reserveCapacity(ids.count * 8)
            for id in ids { packedIDs.writeInteger(id, endianness: .little) }
            var sketches = ByteBuffer()
            sketches.writeRepeatingByte(0, count: ids.count * PrintSketch.byteCount)
            halves.withUnsafeBytes { raw in
                let halves = raw.assumingMemoryBound(to: UInt16.self)
                sketches.withUnsafeMutableReadableBytes { PrintSketch.encode(halves, count: ids.count, into: $0) }
            }
            written.append(block)
            writtenIDs.append(packedIDs)
            writtenSketches.append(sketches)
        }
        guard !written.isEmpty else { return }
        var insert = PostgresBindings()
        insert.append(written)
        insert.append(writtenIDs)
        insert.append(writtenSketches)
        try await session.execute(
            "INSERT INTO print_sketches(block, ids, sketches) SELECT * FROM unnest($1::bigint[], $2::bytea[], $3::bytea[])", insert)
    }

    /// Prints gathered row by row and handed on ``blockSize`` at a time.
    private struct Batch {
        var ids: [Int64] = []
        var bytes: [UInt8] = []

        mutating func append(_ id: Int64, _ print: ByteBuffer, _ body: ([Int64], UnsafeRawBufferPointer) throws -> Void) rethrows {
            ids.append(id)
            bytes.append(contentsOf: print.readableBytesView)
            if ids.count == blockSize { try flush(body) }
        }

        mutating func flush(_ body: ([Int64], UnsafeRawBufferPointer) throws -> Void) rethrows {
            guard !ids.isEmpty else { return }
            try bytes.withUnsafeBytes { try body(ids, $0) }
            ids.removeAll(keepingCapacity: true)
            bytes.removeAll(keepingCapacity: true)
        }
    }
}
