import ClassifySupport
import Foundation
import GRDB

extension SQLiteIndex {
    /// Starts an index run over `roots` with `model`, taking the writer lock.
    ///
    /// Throws ``TagIndexError/anotherRunInProgress(path:)`` ("another index run is
    /// writing to DB") when another run holds the lock, in this or another process.
    ///
    /// ```swift
    /// let run = try index.beginRun(roots: ["/photos"], model: stamp)
    /// for plan in try run.plan(scannedFiles) where plan.action == .needsClassification {
    ///     let hash = try ContentHash.hex(ofFileAt: URL(fileURLWithPath: plan.facts.path))
    ///     if try run.resolve(plan.facts, contentHash: hash) == .classify { /* classify, then */ }
    /// }
    /// try run.write(batch: entries)
    /// let summary = try run.finish()
    /// ```
    public func beginRun(roots: [String], model: ModelStamp) throws -> IndexRun {
        try writerLock.acquire(databasePath: location)
        return IndexRun(index: self, roots: roots.map(IndexRun.normalizedRoot), model: model)
    }
}

/// What a run should do with a scanned file.
///
/// ```swift
/// if plan.action == .needsClassification { /* hash, then resolve */ }
/// ```
public enum FileAction: Sendable, Hashable {
    /// Same size, modification time and model stamp as indexed: nothing to do.
    case unchanged
    /// New, changed, or indexed by another model: hash it and call ``IndexRun/resolve(_:contentHash:)``.
    case needsClassification
}

/// The plan for one scanned file.
///
/// ```swift
/// let plans = try run.plan(files)
/// ```
public struct FilePlan: Sendable, Hashable {
    /// The scanned facts.
    public var facts: FileFacts
    /// What to do.
    public var action: FileAction
    /// True when the path is already in the index (so a classification updates it).
    public var isIndexed: Bool
}

/// What ``IndexRun/resolve(_:contentHash:)`` found for a hashed candidate.
///
/// ```swift
/// switch try run.resolve(facts, contentHash: hash) {
/// case .classify: classifyLater.append(facts)
/// case .touched, .moved, .copied: break   // labels kept, nothing to classify
/// }
/// ```
public enum Resolution: Sendable, Hashable {
    /// New content (or another model): classify it and write the result.
    case classify
    /// Same content at the same path: size and modification time updated, labels kept.
    case touched
    /// Same content as an indexed file that no longer exists: the row moved here, labels kept.
    case moved(from: String)
    /// Same content as an indexed file that still exists: its labels were copied.
    case copied(from: String)
}

/// One index run: plans scanned files, resolves moved and touched ones, writes
/// batches, and at ``finish()`` removes what the scan no longer saw under its roots.
///
/// Every batch commits on its own, so a run killed at any moment leaves a
/// consistent database and the next run skips the files already written. The
/// run holds the writer lock until ``finish()`` or ``cancel()``.
///
/// ```swift
/// let run = try index.beginRun(roots: ["/photos"], model: stamp)
/// let plans = try run.plan(files)
/// try run.write(batch: results.map(IndexEntry.classified))
/// print(try run.finish())
/// ```
public final class IndexRun: Sendable {
    /// Normalized roots (no trailing slash).
    public let roots: [String]
    /// The model stamp of this run.
    public let model: ModelStamp

    private let index: SQLiteIndex
    private struct State {
        var summary = RunSummary()
        /// 64-bit hashes of every scanned path. A collision can only keep a
        /// deleted file's row, never remove a seen one.
        var seen = Set<UInt64>()
        var finished = false
    }
    private let state = Locked(State())

    init(index: SQLiteIndex, roots: [String], model: ModelStamp) {
        self.index = index
        self.roots = roots
        self.model = model
    }

    deinit { if !state.withLock({ $0.finished }) { index.writerLock.release() } }

    static func normalizedRoot(_ root: String) -> String {
        var root = root
        while root.count > 1, root.hasSuffix("/") { root.removeLast() }
        return root == "/" ? "" : root
    }

    private static func pathKey(_ path: String) -> UInt64 {
        var hasher = ContentHash()
        hasher.update(path.utf8)
        return hasher.finalize()
    }

    private func checkActive() throws {
        if state.withLock({ $0.finished }) { throw TagIndexError.runFinished }
    }

    /// The counts so far (the final ones come from ``finish()``).
    public var summary: RunSummary { state.withLock { $0.summary } }

    /// Decides for each scanned file whether it needs classification. Call it
    /// with every file of the scan (in chunks as the scan goes); files under the
    /// roots never passed here are removed by ``finish()``.
    ///
    /// ```swift
    /// let plans = try run.plan(chunk)
    /// ```
    public func plan(_ files: [FileFacts]) throws -> [FilePlan] {
        try checkActive()
        let plans: [FilePlan] = try index.guardingStorage { try index.database.read { db in
            let modelID = try Int64.fetchOne(
                db, sql: "SELECT id FROM models WHERE name = ? AND version = ?",
                arguments: [model.name, model.version])
            let lookup = try db.cachedStatement(sql: "SELECT size, mtime, model_id FROM images WHERE path = ?")
            return try files.map { file in
                guard let row = try Row.fetchOne(lookup, arguments: [file.path]) else {
                    return FilePlan(facts: file, action: .needsClassification, isIndexed: false)
                }
                let unchanged =
                    row[0] as Int64 == file.size
                    && row[1] as Int64 == Timestamps.microseconds(file.modificationTime)
                    && modelID != nil && row[2] as Int64? == modelID
                return FilePlan(facts: file, action: unchanged ? .unchanged : .needsClassification, isIndexed: true)
            }
        } }
        state.withLock { state in
            state.summary.scanned += files.count
            state.summary.unchanged += plans.count { $0.action == .unchanged }
            for file in files { state.seen.insert(Self.pathKey(file.path)) }
        }
        return plans
    }

    /// Looks for the hashed content in the index before classifying it: the same
    /// content at the same path (touched), at a path that no longer exists on disk
    /// (moved) or at one that still exists (copied) keeps its labels. Only
    /// matches from this run's model count.
    ///
    /// ```swift
    /// if try run.resolve(facts, contentHash: hash) == .classify { toClassify.append(facts) }
    /// ```
    public func resolve(_ file: FileFacts, contentHash: String) throws -> Resolution {
        try checkActive()
        let mtime = Timestamps.microseconds(file.modificationTime)
        let resolution: Resolution = try index.guardingStorage { try index.database.write { db in
            var writer = BatchWriter(db: db)
            let modelID = try writer.modelID(model)
            let existing = try Row.fetchOne(
                db, sql: "SELECT id, content_hash, model_id FROM images WHERE path = ?", arguments: [file.path])
            if let existing, existing[1] as String? == contentHash, existing[2] as Int64? == modelID {
                try db.execute(
                    sql: "UPDATE images SET size = ?, mtime = ? WHERE id = ?",
                    arguments: [file.size, mtime, existing[0] as Int64])
                return .touched
            }
            let twins = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, path FROM images
                    WHERE content_hash = ? AND model_id = ? AND error_stage IS NULL AND path <> ?
                    ORDER BY id
                    """,
                arguments: [contentHash, modelID, file.path])
            guard let source = twins.first else { return .classify }
            if let gone = twins.first(where: { !RawPath.exists($0[1]) }) {
                if let existing { try writer.deleteImage(existing[0]) }
                try db.execute(
                    sql: "UPDATE images SET path = ?, size = ?, mtime = ? WHERE id = ?",
                    arguments: [file.path, file.size, mtime, gone[0] as Int64])
                try writer.flushCounts()
                return .moved(from: gone[1])
            }
            let targetID = try Int64.fetchOne(
                db,
                sql: """
                    INSERT INTO images(path, size, mtime, content_hash, width, height, model_id, indexed_at,
                                       top_confidence, feature_print, dominant_colors)
                    SELECT ?, ?, ?, content_hash, width, height, model_id, ?,
                           top_confidence, feature_print, dominant_colors
                    FROM images WHERE id = ?
                    ON CONFLICT(path) DO UPDATE SET
                        size = excluded.size, mtime = excluded.mtime, content_hash = excluded.content_hash,
                        width = excluded.width, height = excluded.height, model_id = excluded.model_id,
                        indexed_at = excluded.indexed_at, error_stage = NULL, error_reason = NULL,
                        top_confidence = excluded.top_confidence, feature_print = excluded.feature_print,
                        dominant_colors = excluded.dominant_colors
                    RETURNING id
                    """,
                arguments: [file.path, file.size, mtime, Timestamps.microseconds(Date()), source[0] as Int64])!
            try writer.copyObservations(from: source[0], to: targetID)
            try writer.flushCounts()
            return .copied(from: source[1])
        } }
        state.withLock { state in
            state.seen.insert(Self.pathKey(file.path))
            state.summary.record(resolution)
        }
        return resolution
    }

    /// Writes a batch in one transaction (see ``SQLiteIndex/write(batch:)``) and counts it.
    ///
    /// ```swift
    /// try run.write(batch: [.classified(result)])
    /// ```
    public func write(batch: [IndexEntry]) throws {
        try checkActive()
        try index.write(batch: batch)
        state.withLock { state in
            for entry in batch {
                state.seen.insert(Self.pathKey(entry.path))
                switch entry {
                case .classified: state.summary.classified += 1
                case .failed: state.summary.failed += 1
                }
            }
        }
    }

    /// Removes indexed files under the roots that the scan did not see, releases
    /// the writer lock and returns the summary.
    ///
    /// ```swift
    /// let summary = try run.finish()
    /// ```
    public func finish() throws -> RunSummary {
        try checkActive()
        defer {
            state.withLock { $0.finished = true }
            index.writerLock.release()
        }
        let seen = state.withLock { $0.seen }
        var unseen: [Int64] = []
        try index.guardingStorage { try index.database.read { db in
            for root in roots {
                let rows = try Row.fetchCursor(
                    db, sql: "SELECT id, path FROM images WHERE path >= ? AND path < ?",
                    arguments: [root + "/", root + "0"])
                while let row = try rows.next() {
                    if !seen.contains(Self.pathKey(row[1])) { unseen.append(row[0]) }
                }
            }
        } }
        for chunk in stride(from: 0, to: unseen.count, by: 500) {
            try index.guardingStorage { try index.database.write { db in
                var writer = BatchWriter(db: db)
                for id in unseen[chunk..<min(chunk + 500, unseen.count)] { try writer.deleteImage(id) }
                try writer.flushCounts()
            } }
        }
        return state.withLock { state in
            state.summary.removed = unseen.count
            return state.summary
        }
    }

    /// Ends the run without removing anything and releases the writer lock.
    ///
    /// ```swift
    /// run.cancel()
    /// ```
    public func cancel() {
        guard !state.withLock({ $0.finished }) else { return }
        state.withLock { $0.finished = true }
        index.writerLock.release()
    }
}
