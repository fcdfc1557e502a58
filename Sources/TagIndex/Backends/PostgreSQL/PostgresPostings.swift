import PostgresNIO

/// PostgreSQL's `label_postings`: SQLite's compact posting blocks (see ``Postings``), kept as a
/// compacted copy of `observations` instead of by the writers; and `image_prints` and
/// `print_sketches`, the feature prints of `images` stored for fast reading and their sketches.
///
/// Triggers on `observations` and `images` append each block a statement changed to
/// `changed_blocks`; ``compact(_:maximumBlocks:)`` rebuilds changed blocks from `image_labels`
/// (the same observations, packed per image) and `images`, and removes the change rows it saw. ``load(_:size:_:)`` reads
/// the postings of the clean blocks and the observations of the changed ones in one statement,
/// so a search never sees a half-compacted state, and a block changed after its compaction is
/// read from `observations` until it is compacted again.
///
/// Usage:
/// ```swift
/// try await PostgresPostings.compact(session)
/// let postings = try await PostgresPostings.load([dogID, catID], size: maxImageID + 1, session)
/// let scores = try DenseEvaluator(source: postings, total: total).evaluate(plan)
/// ```
enum PostgresPostings {
    /// Advisory lock key of compaction ("TagPosts" in ASCII): one compactor at a time.
    static let compactionLock: Int64 = 0x5461_6750_6F73_7473

    /// Blocks rebuilt per transaction (4,096 image ids each).
    static let blocksPerTransaction = 8

    /// Rebuilds the postings of changed blocks, at most `maximumBlocks` of them, and returns how
    /// many it rebuilt. One process compacts at a time: the others wait for it (`waiting`) or, not
    /// waiting, return 0 at once (a heartbeat's few blocks can wait for the next beat).
    ///
    /// Each transaction reads, at one snapshot (repeatable read), a few blocks' change rows and
    /// their images' packed labels, replaces those blocks' postings and deletes exactly the change
    /// rows it read: a writer that commits meanwhile adds a change row this transaction did not
    /// see, so its block stays changed and is read from `observations` until the next compaction.
    ///
    /// Usage: `let rebuilt = try await PostgresPostings.compact(session)`
    @discardableResult
    static func compact(_ session: PostgresSession, maximumBlocks: Int = .max, waiting: Bool = true) async throws -> Int {
        var rebuilt = 0
        while rebuilt < maximumBlocks {
            let batch = min(blocksPerTransaction, maximumBlocks - rebuilt)
            let done = try await session.transaction(isolation: .repeatableRead) { session in
                try await compactSome(batch, session)
            }
            guard let done else {
                // Another process holds the lock. Waiting on it inside this transaction would keep
                // a snapshot older than that process's work, so try again in a new one.
                guard waiting else { break }
                try await Task.sleep(for: .milliseconds(100))
                continue
            }
            guard done > 0 else { break }
            rebuilt += done
        }
        return rebuilt
    }

    /// One compaction transaction's work: the blocks it rebuilt, or nil when another process holds
    /// the compaction lock (transaction-scoped, so connection poolers keep working).
    private static func compactSome(_ limit: Int, _ session: PostgresSession) async throws -> Int? {
        var lock = PostgresBindings()
        lock.append(compactionLock)
        let locked = try await session.all("SELECT pg_try_advisory_xact_lock($1)", lock) { try $0.decode(Bool.self) }
        guard locked.first == true else { return nil }
        var limits = PostgresBindings()
        limits.append(Int64(limit))
        let changes = try await session.all(
            "SELECT block, array_agg(id) FROM changed_blocks GROUP BY block ORDER BY block LIMIT $1", limits
        ) { try $0.decode((Int64, [Int64]).self) }
        guard !changes.isEmpty else { return 0 }
        let blocks = changes.map(\.0)

        // Each block's images as one value: per image its id and packed labels' length (both
        // int4, big-endian, as int4send writes them) and the packed labels.
        var read = PostgresBindings()
        read.append(blocks)
        var labels: [Int64] = []
        var labelBlocks: [Int64] = []
        var entries: [ByteBuffer] = []
        let shift = Postings.blockShift
        _ = try await session.all("""
            SELECT b.block, string_agg(int4send(l.image_id::int4) || int4send(length(l.packed)) || l.packed, ''::bytea ORDER BY l.image_id)
            FROM unnest($1::bigint[]) AS b(block)
            JOIN image_labels AS l ON l.image_id >= b.block << \(shift) AND l.image_id < (b.block + 1) << \(shift)
            GROUP BY b.block
            """, read
        ) { row in
            let (block, packedImages) = try row.decode((Int64, ByteBuffer?).self)
            guard let packedImages else { return }
            for (label, list) in postings(ofBlock: packedImages).sorted(by: { $0.key < $1.key }) {
                labels.append(label)
                labelBlocks.append(block)
                entries.append(ByteBuffer(bytes: list))
            }
        }
        var delete = PostgresBindings()
        delete.append(blocks)
        try await session.execute("DELETE FROM label_postings WHERE block = ANY($1::bigint[])", delete)
        if !labels.isEmpty {
            var insert = PostgresBindings()
            insert.append(labels)
            insert.append(labelBlocks)
            insert.append(entries)
            try await session.execute(
                "INSERT INTO label_postings(label_id, block, entries) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bytea[])",
                insert)
        }
        // The blocks' prints, copied inline and uncompressed (see `image_prints` in `pg3`): a
        // compressed value is stored as it comes, so the concatenation makes it a new one.
        try await session.execute("""
            DELETE FROM image_prints AS p USING unnest($1::bigint[]) AS b(block)
            WHERE p.image_id >= b.block << \(shift) AND p.image_id < (b.block + 1) << \(shift)
            """, delete)
        try await session.execute("""
            INSERT INTO image_prints(image_id, print) SELECT i.id, i.feature_print || ''::bytea FROM unnest($1::bigint[]) AS b(block)
            JOIN images AS i ON i.id >= b.block << \(shift) AND i.id < (b.block + 1) << \(shift)
            WHERE i.feature_print IS NOT NULL
            """, delete)
        try await PostgresPrints.writeSketches(ofBlocks: blocks, session)
        var seen = PostgresBindings()
        seen.append(changes.flatMap(\.1))
        try await session.execute("DELETE FROM changed_blocks WHERE id = ANY($1::bigint[])", seen)
        return blocks.count
    }

    /// A block's postings per label (``Postings``' entry format, in image order) from its images'
    /// packed labels as the compaction statement aggregates them.
    static func postings(ofBlock packedImages: ByteBuffer) -> [Int64: [UInt8]] {
        var byLabel: [Int64: [UInt8]] = [:]
        packedImages.readableBytesView.withUnsafeBytes { bytes in
            var offset = 0
            while offset + 8 <= bytes.count {
                let image = Int(bigEndian32(bytes, offset))
                let length = Int(bigEndian32(bytes, offset + 4))
                offset += 8
                guard length >= 0, offset + length <= bytes.count else { return }
                let low = image & Postings.blockMask
                PackedLabels.forEach(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + length])) { label, best, _ in
                    byLabel[Int64(label), default: []].append(contentsOf: [
                        UInt8(truncatingIfNeeded: low), UInt8(truncatingIfNeeded: low >> 8),
                        UInt8(truncatingIfNeeded: best), UInt8(truncatingIfNeeded: best >> 8),
                    ])
                }
                offset += length
            }
        }
        return byLabel
    }

    @inline(__always) private static func bigEndian32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
    }

    /// How many distinct blocks are waiting for compaction.
    ///
    /// Usage: `let changed = try await PostgresPostings.changedBlockCount(session)`
    static func changedBlockCount(_ session: PostgresSession) async throws -> Int {
        Int(try await session.all("SELECT COUNT(DISTINCT block) FROM changed_blocks") { try $0.decode(Int64.self) }.first ?? 0)
    }

    /// The postings of `labels` for ``DenseEvaluator``: compacted blocks where they are current,
    /// `observations` rows in the changed blocks, read in one statement (one snapshot).
    ///
    /// Usage: `let postings = try await PostgresPostings.load([dogID], size: maxImageID + 1, session)`
    static func load(_ labels: [Int64], size: Int, _ session: PostgresSession) async throws -> PrefetchedPostings {
        var postings = PrefetchedPostings(size: size)
        guard !labels.isEmpty else { return postings }
        var binds = PostgresBindings()
        binds.append(labels)
        let shift = Postings.blockShift
        _ = try await session.all("""
            WITH changed AS (SELECT DISTINCT block FROM changed_blocks)
            SELECT p.label_id, p.block, p.entries, NULL::bigint, NULL::integer FROM label_postings AS p
            WHERE p.label_id = ANY($1::bigint[]) AND p.block NOT IN (SELECT block FROM changed)
            UNION ALL
            SELECT o.label_id, NULL, NULL, o.image_id, o.best FROM changed AS c
            JOIN observations AS o ON o.label_id = ANY($1::bigint[])
                AND o.image_id >= c.block << \(shift) AND o.image_id < (c.block + 1) << \(shift)
            """, binds
        ) { row in
            let (label, block, entries, image, best) = try row.decode((Int64, Int64?, ByteBuffer?, Int64?, Int?).self)
            if let block, let entries {
                postings.add(label, block: Int(block), entries: entries.readableBytesView.withUnsafeBytes { Array($0) })
            } else if let image, let best {
                postings.add(label, image: Int(image), best: best)
            }
        }
        return postings
    }
}

extension PostgresPostings {
    /// Whether the stored postings of clean blocks mirror `observations` exactly (a check for
    /// tests and tools: it reads every observation).
    ///
    /// Usage: `#expect(try await PostgresPostings.matchObservations(session))`
    static func matchObservations(_ session: PostgresSession) async throws -> Bool {
        let changed = Set(try await session.all("SELECT DISTINCT block FROM changed_blocks") { try $0.decode(Int64.self) })
        var expected: [String: [UInt8]] = [:]
        let rows = try await session.all("SELECT label_id, image_id, best FROM observations ORDER BY label_id, image_id") {
            try $0.decode((Int64, Int64, Int).self)
        }
        for (label, image, best) in rows where !changed.contains(image >> Int64(Postings.blockShift)) {
            let low = Int(image) & Postings.blockMask
            expected["\(label)/\(image >> Int64(Postings.blockShift))", default: []].append(contentsOf: [
                UInt8(truncatingIfNeeded: low), UInt8(truncatingIfNeeded: low >> 8),
                UInt8(truncatingIfNeeded: best), UInt8(truncatingIfNeeded: best >> 8),
            ])
        }
        var stored: [String: [UInt8]] = [:]
        let postings = try await session.all("SELECT label_id, block, entries FROM label_postings") {
            try $0.decode((Int64, Int64, ByteBuffer).self)
        }
        for (label, block, entries) in postings where !changed.contains(block) {
            stored["\(label)/\(block)"] = entries.readableBytesView.withUnsafeBytes { Array($0) }
        }
        return stored == expected
    }
}

extension PostgresPostings {
    /// Whether `image_prints` holds exactly the prints of `images` in every clean block, and
    /// `print_sketches` exactly their sketches (a check for tests and tools).
    ///
    /// Usage: `#expect(try await PostgresPostings.printsMatchImages(session))`
    static func printsMatchImages(_ session: PostgresSession) async throws -> Bool {
        let differing = try await session.all("""
            SELECT COUNT(*) FROM (SELECT id, feature_print FROM images WHERE feature_print IS NOT NULL) AS i
            FULL JOIN image_prints AS p ON p.image_id = i.id
            WHERE COALESCE(i.id, p.image_id) >> \(Postings.blockShift) NOT IN (SELECT block FROM changed_blocks)
                AND (i.id IS NULL OR p.image_id IS NULL OR i.feature_print <> p.print)
            """) { try $0.decode(Int64.self) }
        guard differing.first == 0 else { return false }
        // The sketches of the clean blocks, against sketches made here from the prints.
        var expected: [Int64: (ids: [Int64], halves: [UInt8])] = [:]
        _ = try await session.all("""
            SELECT image_id, print FROM image_prints
            WHERE octet_length(print) = \(FeaturePrint.dimension * 2)
                AND image_id >> \(Postings.blockShift) NOT IN (SELECT block FROM changed_blocks)
            ORDER BY image_id
            """) { row in
            let (id, print) = try row.decode((Int64, ByteBuffer).self)
            expected[id >> Int64(Postings.blockShift), default: ([], [])].ids.append(id)
            expected[id >> Int64(Postings.blockShift), default: ([], [])].halves.append(contentsOf: print.readableBytesView)
        }
        let stored = try await session.all("""
            SELECT block, ids, sketches FROM print_sketches WHERE block NOT IN (SELECT block FROM changed_blocks)
            """) { try $0.decode((Int64, ByteBuffer, ByteBuffer).self) }
        guard Set(stored.map(\.0)) == Set(expected.keys) else { return false }
        for (block, ids, sketches) in stored {
            guard let block = expected[block] else { return false }
            var packedIDs = ByteBuffer()
            for id in block.ids { packedIDs.writeInteger(id, endianness: .little) }
            var made = [UInt8](repeating: 0, count: block.ids.count * PrintSketch.byteCount)
            block.halves.withUnsafeBytes { raw in
                made.withUnsafeMutableBytes { PrintSketch.encode(raw.assumingMemoryBound(to: UInt16.self), count: block.ids.count, into: $0) }
            }
            guard ids == packedIDs, Array(sketches.readableBytesView) == made else { return false }
        }
        return true
    }
}
