import PostgresNIO

/// Reads feature prints from PostgreSQL for similar images and near-duplicates, a block of 4,096
/// image ids per statement: the compacted, uncompressed copies in `image_prints` where their block
/// is clean, `images.feature_print` where it changed since the last compaction (see
/// ``PostgresPostings``). Reading uncompressed prints saves the server most of its work
/// (decompressing 100,000 prints took it 570 ms); the client's cost is receiving the rows. (The
/// server concatenating a block's prints into one value, `string_agg`, was slower: 20-40 ms per
/// block to build it.)
///
/// Usage: `try await PostgresPrints.forEachBlock(candidates: nil, session) { ids, prints in ... }`
enum PostgresPrints {
    /// The most prints one call of the body receives.
    static let blockSize = 1 << Postings.blockShift

    /// Calls `body(ids, prints)` for each block in id order: `ids` ascending, `prints` their
    /// prints back to back (``FeaturePrint/dimension`` half floats each). Only prints of the
    /// stored size are read. `candidates` (sorted ids) narrows the images; nil reads them all.
    /// `inIDOrder: false` (for a caller whose result does not depend on the order, and
    /// without candidates) reads every print in one statement, so the server sends rows while the
    /// client scores them, instead of a statement per block in turn; blocks then hold up to
    /// ``blockSize`` prints in no particular order.
    static func forEachBlock(
        candidates: [Int64]?, inIDOrder: Bool = true, _ session: PostgresSession,
        _ body: ([Int64], UnsafeRawBufferPointer) throws -> Void
    ) async throws {
        let bytes = Int64(FeaturePrint.dimension * 2)
        let shift = Postings.blockShift
        if candidates == nil && !inIDOrder {
            var binds = PostgresBindings()
            binds.append(bytes)
            var ids: [Int64] = []
            var prints: [UInt8] = []
            _ = try await session.all("""
                WITH changed AS (SELECT DISTINCT block FROM changed_blocks)
                SELECT image_id, print FROM image_prints
                WHERE octet_length(print) = $1 AND (image_id >> \(shift)) NOT IN (SELECT block FROM changed)
                UNION ALL
                SELECT id, feature_print FROM images
                WHERE octet_length(feature_print) = $1 AND (id >> \(shift)) IN (SELECT block FROM changed)
                """, binds
            ) { row in
                let (id, print) = try row.decode((Int64, ByteBuffer).self)
                ids.append(id)
                prints.append(contentsOf: print.readableBytesView)
                if ids.count == blockSize {
                    try prints.withUnsafeBytes { try body(ids, $0) }
                    ids.removeAll(keepingCapacity: true)
                    prints.removeAll(keepingCapacity: true)
                }
            }
            if !ids.isEmpty { try prints.withUnsafeBytes { try body(ids, $0) } }
            return
        }
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
}
