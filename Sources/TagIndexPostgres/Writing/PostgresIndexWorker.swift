import TagIndex
import ClassifySupport
import Foundation
import PostgresNIO

/// One worker of a ``PostgresIndexRun``: its own connection (reconnecting through server
/// restarts), used by one task at a time. Every call is safe to repeat after a fault.
///
/// Usage:
/// ```swift
/// let worker = run.makeWorker()
/// let claims = try await worker.claim(limit: 4)
/// try await worker.write(entries, completing: claims)
/// await worker.close()
/// ```
public final class PostgresIndexWorker: IndexWriterWorker {
    public let run: PostgresIndexRun
    /// This worker's name in `index_queue.claimed_by`.
    public let name: String
    let session: ReconnectingSession

    init(run: PostgresIndexRun, name: String) {
        self.run = run
        self.name = name
        session = ReconnectingSession(run.descriptor, patience: run.settings.patience)
    }

    /// Connections this worker made again after losing the server.
    public var reconnections: Int { session.reconnections }

    /// Queues the walked files that need reading (not in the index with the same size, time and
    /// model); returns how many need it. `files` hold local paths under the run's roots (others
    /// are ignored).
    ///
    /// Usage: `let queued = try await worker.plan(chunk)`
    @discardableResult
    public func plan(_ files: [FileFacts]) async throws -> Int {
        var paths: [String] = [], sizes: [Int64] = [], times: [Int64] = []
        for file in files {
            guard let path = run.roots.libraryPath(forLocal: file.path) else { continue }
            paths.append(path)
            sizes.append(file.size)
            times.append(Timestamps.microseconds(file.modificationTime))
        }
        guard !paths.isEmpty else { return 0 }
        var binds = PostgresBindings()
        binds.append(paths)
        binds.append(sizes)
        binds.append(times)
        binds.append(run.state.withLock { $0.modelID })
        // Queued in path order, so concurrent walks of one folder lock queue rows in one order.
        let needed = try await session.run { session -> Int64 in
            let counts = try await session.all("""
                WITH walked AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[]) AS w(path, size, mtime)),
                needed AS (
                    SELECT w.path, w.size, w.mtime FROM walked AS w LEFT JOIN images AS i ON i.path = w.path
                    WHERE i.id IS NULL OR i.size <> w.size OR i.mtime <> w.mtime OR i.model_id IS DISTINCT FROM $4),
                queued AS (
                    INSERT INTO index_queue(path, size, mtime) SELECT path, size, mtime FROM needed ORDER BY path COLLATE "C"
                    ON CONFLICT(path) DO UPDATE SET size = excluded.size, mtime = excluded.mtime
                    WHERE index_queue.size <> excluded.size OR index_queue.mtime <> excluded.mtime
                    RETURNING 1)
                SELECT (SELECT COUNT(*) FROM needed), (SELECT COUNT(*) FROM queued)
                """, binds) { row -> Int64 in try row.decode((Int64, Int64).self).0 }
            return counts.first ?? 0
        }
        run.state.withLock { state in
            state.summary.scanned += files.count
            state.summary.unchanged += paths.count - Int(needed)
            for path in paths { state.seen.insert(PostgresIndexRun.pathKey(path)) }
        }
        return Int(needed)
    }

    /// Claims up to `limit` queued files under the run's roots that no live lease holds (the
    /// oldest expired ones included), for `RunSettings.lease`.
    ///
    /// Usage: `let claims = try await worker.claim(limit: 4)`
    public func claim(limit: Int) async throws -> [ClaimedFile] {
        var binds = PostgresBindings()
        binds.append(name)
        binds.append(run.settings.leaseSeconds)
        binds.append(Int64(max(1, limit)))
        let condition = run.rootCondition(column: "path", &binds)
        let rows = try await session.run { session in
            try await session.all("""
                UPDATE index_queue AS q SET claimed_by = $1, lease_until = now() + make_interval(secs => $2), attempts = q.attempts + 1
                FROM (SELECT path FROM index_queue
                      WHERE (claimed_by = $1 OR lease_until IS NULL OR lease_until < now()) AND \(condition)
                      ORDER BY path LIMIT $3 FOR UPDATE SKIP LOCKED) AS c
                WHERE q.path = c.path
                RETURNING q.path, q.size, q.mtime, q.attempts
                """, binds) { try $0.decode((String, Int64, Int64, Int).self) }
        }
        run.hold(rows.map(\.0), by: name)
        return rows.compactMap { path, size, mtime, attempts in
            guard let local = run.roots.localPath(forLibrary: path) else { return nil }
            return ClaimedFile(facts: FileFacts(path: local, size: size, modificationTime: Timestamps.date(mtime)), libraryPath: path, attempts: attempts)
        }.sorted { $0.libraryPath < $1.libraryPath }
    }

    /// Gives claims back without writing them (an interrupted run), so others take them at once.
    ///
    /// Usage: `try await worker.release(claims)`
    public func release(_ claims: [ClaimedFile]) async throws {
        guard !claims.isEmpty else { return }
        run.hold(claims.map(\.libraryPath), by: nil)
        var binds = PostgresBindings()
        binds.append(name)
        binds.append(claims.map(\.libraryPath))
        try await session.run { session in
            try await session.execute(
                "UPDATE index_queue SET claimed_by = NULL, lease_until = NULL, attempts = attempts - 1 WHERE claimed_by = $1 AND path = ANY($2::text[])",
                binds)
        }
    }

    /// How many queued files under the run's roots are left (claimed or not), and in how many
    /// seconds the soonest live lease ends (nil when none is live).
    ///
    /// Usage: `let (left, wait) = try await worker.remaining()`
    public func remaining() async throws -> (count: Int, soonestExpiry: Double?) {
        var binds = PostgresBindings()
        let condition = run.rootCondition(column: "path", &binds)
        let row = try await session.run { session in
            try await session.all("""
                SELECT COUNT(*), EXTRACT(EPOCH FROM MIN(lease_until) FILTER (WHERE lease_until > now()) - now())::float8
                FROM index_queue WHERE \(condition)
                """, binds) { try $0.decode((Int64, Double?).self) }.first
        }
        return (Int(row?.0 ?? 0), row?.1)
    }

    /// ``resolve(_:contentHash:)`` for a batch: one look at the index finds the claims whose
    /// path or content (from this run's model) it already holds; only those are resolved one by
    /// one, in their own transactions, and the rest are new content to classify.
    ///
    /// Usage: `let resolutions = try await worker.resolve(zip(claims, hashes).map { ($0, $1) })`
    public func resolve(_ claims: [(claim: ClaimedFile, contentHash: String)]) async throws -> [Resolution] {
        guard !claims.isEmpty else { return [] }
        var binds = PostgresBindings()
        binds.append(claims.map(\.claim.libraryPath))
        binds.append(claims.map(\.contentHash))
        binds.append(run.state.withLock { $0.modelID })
        let known = Set(try await session.run { session in
            try await session.all("""
                SELECT path FROM images WHERE path = ANY($1::text[])
                UNION SELECT u.path FROM unnest($1::text[], $2::text[]) AS u(path, hash)
                      WHERE EXISTS (SELECT 1 FROM images AS i WHERE i.content_hash = u.hash AND i.model_id = $3)
                """, binds) { try $0.decode(String.self) }
        })
        var resolutions: [Resolution] = []
        for (claim, hash) in claims {
            resolutions.append(known.contains(claim.libraryPath) ? try await resolve(claim, contentHash: hash) : .classify)
        }
        return resolutions
    }

    /// Looks for the claimed content in the index before classifying it, as
    /// ``IndexRun/resolve(_:contentHash:)`` does: the same content at the same path (touched),
    /// at a path whose file is gone from this machine (moved) or at another path (copied) keeps
    /// its labels. Only matches from this run's model count.
    ///
    /// Usage: `if try await worker.resolve(claim, contentHash: hash) == .classify { ... }`
    public func resolve(_ claim: ClaimedFile, contentHash: String) async throws -> Resolution {
        let path = claim.libraryPath
        let roots = run.roots
        let (taxonomy, modelID) = run.state.withLock { ($0.taxonomy, $0.modelID) }
        let resolution: Resolution = try await session.transaction { session in
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            var binds = PostgresBindings()
            binds.append(path)
            let existing = try await session.all(
                "SELECT id, content_hash, model_id FROM images WHERE path = $1 FOR UPDATE", binds
            ) { try $0.decode((Int64, String?, Int64?).self) }.first
            if let existing, existing.1 == contentHash, existing.2 == modelID {
                var update = PostgresBindings()
                update.append(claim.facts.size)
                update.append(Timestamps.microseconds(claim.facts.modificationTime))
                update.append(existing.0)
                try await session.execute("UPDATE images SET size = $1, mtime = $2 WHERE id = $3", update)
                return .touched
            }
            var twinBinds = PostgresBindings()
            twinBinds.append(contentHash)
            twinBinds.append(modelID)
            twinBinds.append(path)
            let twins = try await session.all("""
                SELECT id, path FROM images WHERE content_hash = $1 AND model_id = $2 AND error_stage IS NULL AND path <> $3
                ORDER BY id LIMIT 16
                """, twinBinds) { try $0.decode((Int64, String).self) }
            guard let source = twins.first else { return .classify }
            // A twin is gone only when this machine can look: under one of its roots, and missing.
            if let gone = twins.first(where: { twin in roots.localPath(forLibrary: twin.1).map { !RawPath.exists($0) } ?? false }) {
                if let existing { try await writer.deleteImages([existing.0]) }
                var move = PostgresBindings()
                move.append(path)
                move.append(claim.facts.size)
                move.append(Timestamps.microseconds(claim.facts.modificationTime))
                move.append(gone.0)
                try await session.execute("UPDATE images SET path = $1, size = $2, mtime = $3 WHERE id = $4", move)
                try await writer.flushCounts()
                return .moved(from: gone.1)
            }
            var copy = PostgresBindings()
            copy.append(path)
            copy.append(claim.facts.size)
            copy.append(Timestamps.microseconds(claim.facts.modificationTime))
            copy.append(Timestamps.microseconds(Date()))
            copy.append(source.0)
            let target = try await session.all("""
                INSERT INTO images(path, size, mtime, content_hash, width, height, model_id, indexed_at,
                                   top_confidence, feature_print, dominant_colors)
                SELECT $1, $2, $3, content_hash, width, height, model_id, $4, top_confidence, feature_print, dominant_colors
                FROM images WHERE id = $5
                ON CONFLICT(path) DO UPDATE SET
                    size = excluded.size, mtime = excluded.mtime, content_hash = excluded.content_hash,
                    width = excluded.width, height = excluded.height, model_id = excluded.model_id,
                    indexed_at = excluded.indexed_at, error_stage = NULL, error_reason = NULL,
                    top_confidence = excluded.top_confidence, feature_print = excluded.feature_print,
                    dominant_colors = excluded.dominant_colors
                RETURNING id
                """, copy) { try $0.decode(Int64.self) }
            guard let targetID = target.first else { return .classify }
            try await writer.copyObservations(from: source.0, to: targetID)
            try await writer.flushCounts()
            return .copied(from: source.1)
        }
        run.state.withLock { state in
            state.summary.record(resolution)
        }
        return resolution
    }

    /// Writes `entries` (local paths, mapped to library paths here) and takes `completing` off
    /// the queue, in one transaction; a claim whose file changed since it was queued, or that
    /// another worker took over, stays queued. Returns, per entry, whether its path was new.
    ///
    /// Usage: `let new = try await worker.write(entries, completing: claims)`
    @discardableResult
    public func write(_ entries: [IndexEntry], completing claims: [ClaimedFile]) async throws -> [Bool] {
        let roots = run.roots
        let stored = try entries.map { entry -> IndexEntry in
            guard let path = roots.libraryPath(forLocal: entry.path) else {
                throw TagIndexError.invalidInput("\(entry.path) is under none of the run's folders")
            }
            switch entry {
            case .classified(var result):
                result.path = path
                return .classified(result)
            case .failed(var failure):
                failure.path = path
                return .failed(failure)
            }
        }
        let order = stored.indices.sorted { stored[$0].path < stored[$1].path }
        let taxonomy = run.state.withLock { $0.taxonomy }
        var done = PostgresBindings()
        done.append(name)
        done.append(claims.map(\.libraryPath))
        done.append(claims.map(\.facts.size))
        done.append(claims.map { Timestamps.microseconds($0.facts.modificationTime) })
        var rest = PostgresBindings()
        rest.append(name)
        rest.append(claims.map(\.libraryPath))
        let (inserted, updatedTaxonomy) = try await session.transaction { session -> ([Bool], TaxonomySnapshot?) in
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            // A path given twice is written once, with its last entry; its first entry reports
            // whether the path was new, the later ones that it was not.
            var last: [String: Int] = [:]
            for index in stored.indices { last[stored[index].path] = index }
            let written = order.filter { last[stored[$0].path] == $0 }
            var newPaths: [String: Bool] = [:]
            for (index, row) in zip(written, try await writer.store(written.map { stored[$0] })) { newPaths[stored[index].path] = row.inserted }
            var inserted = [Bool](repeating: false, count: stored.count)
            var reported = Set<String>()
            for index in stored.indices where reported.insert(stored[index].path).inserted {
                inserted[index] = newPaths[stored[index].path] ?? false
            }
            CrashPoints.reach(.entryWritten)
            if !claims.isEmpty {
                try await session.execute("""
                    DELETE FROM index_queue AS q USING unnest($2::text[], $3::bigint[], $4::bigint[]) AS c(path, size, mtime)
                    WHERE q.path = c.path AND q.size = c.size AND q.mtime = c.mtime AND q.claimed_by = $1
                    """, done)
                try await session.execute(
                    "UPDATE index_queue SET claimed_by = NULL, lease_until = NULL WHERE claimed_by = $1 AND path = ANY($2::text[])", rest)
            }
            // Label counts last: their rows are the ones every writer updates, so they stay locked
            // only until the commit that follows.
            try await writer.flushCounts()
            return (inserted, writer.createdLabels ? writer.taxonomy : nil)
        }
        CrashPoints.reach(.batchCommitted)
        run.hold(claims.map(\.libraryPath), by: nil)
        run.state.withLock { state in
            if let updatedTaxonomy { state.taxonomy = updatedTaxonomy }
            for entry in stored {
                state.seen.insert(PostgresIndexRun.pathKey(entry.path))
                switch entry {
                case .classified: state.summary.classified += 1
                case .failed: state.summary.failed += 1
                }
            }
        }
        return inserted
    }

    /// Closes the connection.
    ///
    /// Usage: `await worker.close()`
    public func close() async {
        await session.close()
    }
}
