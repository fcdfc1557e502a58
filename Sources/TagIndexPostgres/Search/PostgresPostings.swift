import TagIndex
import PostgresNIO

/// PostgreSQL's `label_posting_groups`: SQLite's compact posting blocks (see ``Postings``), 16 to
/// a row (``PostingGroups``), kept as a compacted copy of `observations` instead of by the
/// writers; and `image_prints` and `print_sketches`, the feature prints of `images` stored for
/// fast reading and their sketches.
///
/// Triggers on `observations` and `images` append each block a statement changed to
/// `changed_blocks`; ``compact(_:maximumBlocks:)`` rebuilds the groups of changed blocks from
/// `image_labels` (the same observations, packed per image) and `images`, and removes the change
/// rows it saw. ``load(_:size:_:)`` reads the postings of the clean groups and the observations of
/// the changed ones in one statement, so a search never sees a half-compacted state, and a group
/// changed after its compaction is read from `observations` until it is compacted again.
///
/// Usage:
/// ```swift
/// try await PostgresPostings.compact(session)
/// let postings = try await PostgresPostings.load([dogID, catID], size: maxImageID + 1, session)
/// let scores = try DenseEvaluator(source: postings, total: total).evaluate(plan)
/// ```
package enum PostgresPostings {
    /// Advisory lock key of compaction ("TagPosts" in ASCII): one compactor at a time.
    static let compactionLock: Int64 = 0x5461_6750_6F73_7473

    /// Changed blocks an index run's heartbeat compacts (a transaction compacts one group of 16
    /// blocks, see ``PostingGroups``, however many of them changed).
    static let blocksPerHeartbeat = 8

    /// Compacts changed blocks, group by group, until at least `maximumBlocks` of them (or all)
    /// are clean, and returns how many it compacted. One process compacts at a time: the others
    /// wait for it (`waiting`) or, not waiting, return 0 at once (a heartbeat's few blocks can
    /// wait for the next beat).
    ///
    /// Each transaction reads, at one snapshot (repeatable read), the change rows of one group
    /// and the packed labels of the group's images, replaces the group's postings and the changed
    /// blocks' prints and sketches, and deletes exactly the change rows it read: a writer that
    /// commits meanwhile adds a change row this transaction did not see, so its block (and group)
    /// stays changed and is read from the tables until the next compaction.
    ///
    /// Usage: `let compacted = try await PostgresPostings.compact(session)`
    @discardableResult
    package static func compact(_ session: PostgresSession, maximumBlocks: Int = .max, waiting: Bool = true) async throws -> Int {
        var rebuilt = 0
        while rebuilt < maximumBlocks {
            let done = try await session.transaction(isolation: .repeatableRead) { session in
                try await compactGroup(session)
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

    /// One compaction transaction's work: the changed blocks of the first changed group, and how
    /// many they were; nil when another process holds the compaction lock (transaction-scoped, so
    /// connection poolers keep working).
    private static func compactGroup(_ session: PostgresSession) async throws -> Int? {
        var lock = PostgresBindings()
        lock.append(compactionLock)
        let locked = try await session.all("SELECT pg_try_advisory_xact_lock($1)", lock) { try $0.decode(Bool.self) }
        guard locked.first == true else { return nil }
        let groupShift = PostingGroups.blockShift
        let changes = try await session.all("""
            SELECT block, array_agg(id) FROM changed_blocks
            WHERE block >> \(groupShift) = (SELECT MIN(block) >> \(groupShift) FROM changed_blocks)
            GROUP BY block ORDER BY block
            """
        ) { try $0.decode((Int64, [Int64]).self) }
        guard let first = changes.first else { return 0 }
        let group = first.0 >> Int64(groupShift)
        let blocks = changes.map(\.0)

        // Each block's images as one value: per image its id and packed labels' length (both
        // int4, big-endian, as int4send writes them) and the packed labels.
        var read = PostgresBindings()
        read.append(Array((group << Int64(groupShift))..<((group + 1) << Int64(groupShift))))
        var rows: [Int64: [UInt8]] = [:]
        let shift = Postings.blockShift
        _ = try await session.all("""
            SELECT b.block, string_agg(int4send(l.image_id::int4) || int4send(length(l.packed)) || l.packed, ''::bytea ORDER BY l.image_id)
            FROM unnest($1::bigint[]) AS b(block)
            JOIN image_labels AS l ON l.image_id >= b.block << \(shift) AND l.image_id < (b.block + 1) << \(shift)
            GROUP BY b.block ORDER BY b.block
            """, read
        ) { row in
            let (block, packedImages) = try row.decode((Int64, ByteBuffer?).self)
            guard let packedImages else { return }
            for (label, list) in postings(ofBlock: packedImages) {
                PostingGroups.append(block: block, entries: list, to: &rows[label, default: []])
            }
        }
        var groupBinds = PostgresBindings()
        groupBinds.append(group)
        try await session.execute("DELETE FROM label_posting_groups WHERE block_group = $1", groupBinds)
        if !rows.isEmpty {
            let labels = rows.keys.sorted()
            var insert = PostgresBindings()
            insert.append(labels)
            insert.append(group)
            insert.append(labels.map { ByteBuffer(bytes: rows[$0]!) })
            try await session.execute(
                "INSERT INTO label_posting_groups(label_id, block_group, entries) SELECT l, $2, e FROM unnest($1::bigint[], $3::bytea[]) AS u(l, e)",
                insert)
        }
        // The changed blocks' prints, copied inline and uncompressed (see `image_prints` in
        // `pg3`): a compressed value is stored as it comes, so the concatenation makes it a new one.
        var changed = PostgresBindings()
        changed.append(blocks)
        try await session.execute("""
            DELETE FROM image_prints AS p USING unnest($1::bigint[]) AS b(block)
            WHERE p.image_id >= b.block << \(shift) AND p.image_id < (b.block + 1) << \(shift)
            """, changed)
        try await session.execute("""
            INSERT INTO image_prints(image_id, print) SELECT i.id, i.feature_print || ''::bytea FROM unnest($1::bigint[]) AS b(block)
            JOIN images AS i ON i.id >= b.block << \(shift) AND i.id < (b.block + 1) << \(shift)
            WHERE i.feature_print IS NOT NULL
            """, changed)
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
                    Postings.append(low: low, best: best, to: &byLabel[Int64(label), default: []])
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

    /// How many groups of blocks (``PostingGroups``) are waiting for compaction.
    ///
    /// Usage: `let changed = try await PostgresPostings.changedGroupCount(session)`
    static func changedGroupCount(_ session: PostgresSession) async throws -> Int {
        Int(try await session.all(
            "SELECT COUNT(DISTINCT block >> \(PostingGroups.blockShift)) FROM changed_blocks") { try $0.decode(Int64.self) }.first ?? 0)
    }

    /// The postings of `labels` for ``DenseEvaluator``: compacted groups where they are current,
    /// `observations` rows in the groups with a changed block, read in one statement (one snapshot).
    ///
    /// Usage: `let postings = try await PostgresPostings.load([dogID], size: maxImageID + 1, session)`
    static func load(_ labels: [Int64], size: Int, _ session: PostgresSession) async throws -> PrefetchedPostings {
        var postings = PrefetchedPostings(size: size)
        try await forEach(labels, session, group: { postings.add($0, group: $1) }, observation: { postings.add($0, image: $1, best: $2) })
        return postings
    }

    /// The scores ``DenseEvaluator`` gives a single label match (`thresholds`: each label read
    /// and its threshold), raised row by row as the postings arrive, so the evaluation overlaps
    /// the transfer instead of following it.
    ///
    /// Usage: `let scores = try await PostgresPostings.scores(thresholds: [dogID: 3000], size: maxImageID + 1, session)`
    static func scores(thresholds: [Int64: Int], size: Int, _ session: PostgresSession) async throws -> [UInt16] {
        var scores = [UInt16](repeating: 0, count: size)
        try await forEach(
            thresholds.keys.sorted(), session,
            group: { label, group in PrefetchedPostings.raise(&scores, group: group, threshold: thresholds[label]!) },
            observation: { label, image, best in
                PrefetchedPostings.raise(&scores, image: image, best: best, threshold: thresholds[label]!)
            })
        return scores
    }

    /// Calls `group(label, row)` for each compacted group row of `labels` (``PostingGroups``) and
    /// `observation(label, image, best)` for their observations in groups with a changed block,
    /// as the rows arrive, from one statement (one snapshot).
    private static func forEach(
        _ labels: [Int64], _ session: PostgresSession,
        group: (Int64, ByteBuffer) -> Void, observation: (Int64, Int, Int) -> Void
    ) async throws {
        guard !labels.isEmpty else { return }
        var binds = PostgresBindings()
        binds.append(labels)
        let shift = PostingGroups.imageShift
        _ = try await session.all("""
            WITH changed AS (SELECT DISTINCT block >> \(PostingGroups.blockShift) AS block_group FROM changed_blocks)
            SELECT p.label_id, p.entries, NULL::bigint, NULL::integer FROM label_posting_groups AS p
            WHERE p.label_id = ANY($1::bigint[]) AND p.block_group NOT IN (SELECT block_group FROM changed)
            UNION ALL
            SELECT o.label_id, NULL, o.image_id, o.best FROM changed AS c
            JOIN observations AS o ON o.label_id = ANY($1::bigint[])
                AND o.image_id >= c.block_group << \(shift) AND o.image_id < (c.block_group + 1) << \(shift)
            """, binds
        ) { row in
            let (label, entries, image, best) = try row.decode((Int64, ByteBuffer?, Int64?, Int?).self)
            if let entries {
                group(label, entries)
            } else if let image, let best {
                observation(label, Int(image), best)
            }
        }
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
            Postings.append(low: low, best: best, to: &expected["\(label)/\(image >> Int64(Postings.blockShift))", default: []])
        }
        var stored: [String: [UInt8]] = [:]
        let postings = try await session.all("SELECT label_id, entries FROM label_posting_groups") {
            try $0.decode((Int64, ByteBuffer).self)
        }
        for (label, entries) in postings {
            entries.readableBytesView.withUnsafeBytes { row in
                PostingGroups.forEachBlock(row) { block, list in
                    if !changed.contains(Int64(block)) { stored["\(label)/\(block)"] = Array(list) }
                }
            }
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
