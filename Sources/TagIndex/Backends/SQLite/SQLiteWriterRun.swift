import ClassifySupport
import Foundation

/// An index run on a SQLite file as the indexer drives any ``IndexWriterRun``: the files that need
/// reading wait in a queue in this process (one run writes the file at a time, so nobody else
/// claims them), and written entries are committed in batches of ``RunSettings/batchSize`` or
/// after ``RunSettings/batchInterval``, whichever comes first. Each batch is durable on its own:
/// a run killed at any moment leaves a consistent file, and the next run skips what was written.
///
/// The plans, content-hash resolutions and removals are ``IndexRun``'s.
///
/// Usage:
/// ```swift
/// let run = try await index.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: RunSettings())
/// let worker = run.makeWorker()
/// try await worker.plan(files)
/// let claims = try await worker.claim(limit: 1)
/// ```
final class SQLiteWriterRun: IndexWriterRun {
    let settings: RunSettings
    private let run: IndexRun
    private let index: SQLiteIndex

    private struct State {
        /// Files planned as needing reading, not yet claimed (`next` is the first unclaimed).
        var queue: [ClaimedFile] = []
        var next = 0
        /// Files claimed and not yet written or given back.
        var claimed = 0
        /// Paths the index held when they were planned (a classification updates them).
        var known = Set<String>()
        /// Entries written by workers, not yet committed.
        var pending: [IndexEntry] = []
        var lastCommit = ContinuousClock.now
    }
    private let state = Locked(State())
    /// Held while a batch commits, so batches commit in the order they were taken.
    private let committing = Locked(())

    init(run: IndexRun, index: SQLiteIndex, settings: RunSettings) {
        self.run = run
        self.index = index
        self.settings = settings
    }

    var summary: RunSummary { run.summary }

    /// Nothing to renew: no other process claims files of a SQLite file. Returns when the
    /// surrounding task is cancelled.
    func keepClaimsAlive() async {
        while !Task.isCancelled {
            do { try await Task.sleep(for: .seconds(3600)) } catch { return }
        }
    }

    func makeWorker() -> any IndexWriterWorker { SQLiteWriterWorker(run: self) }

    /// Commits what is pending, removes the files gone from the run's folders and releases the
    /// writer lock.
    func finish() async throws -> RunSummary {
        do {
            try commit(force: true)
        } catch {
            run.cancel()
            throw error
        }
        return try run.finish()
    }

    /// Commits what the workers finished (an interrupted run keeps it) and releases the lock
    /// without removing anything. A commit that fails here is left to the next run, which reads
    /// those files again.
    func cancel() {
        try? commit(force: true)
        run.cancel()
    }

    // MARK: - The workers' calls

    func plan(_ files: [FileFacts]) throws -> Int {
        let plans = try run.plan(files)
        let queued = plans.filter { $0.action == .needsClassification }
        state.withLock { state in
            for plan in queued {
                state.queue.append(ClaimedFile(facts: plan.facts, libraryPath: plan.facts.path, attempts: 1))
                if plan.isIndexed { state.known.insert(plan.facts.path) }
            }
        }
        return queued.count
    }

    func claim(limit: Int) -> [ClaimedFile] {
        state.withLock { state in
            let end = min(state.queue.count, state.next + max(0, limit))
            let claims = Array(state.queue[state.next..<end])
            state.next = end
            state.claimed += claims.count
            if state.next > 4096, state.next * 2 > state.queue.count {
                state.queue.removeFirst(state.next)
                state.next = 0
            }
            return claims
        }
    }

    func release(_ claims: [ClaimedFile]) {
        guard !claims.isEmpty else { return }
        state.withLock { state in
            state.queue.insert(contentsOf: claims, at: state.next)
            state.claimed -= claims.count
        }
    }

    func remaining() -> (count: Int, soonestExpiry: Double?) {
        state.withLock { ($0.queue.count - $0.next + $0.claimed, nil) }
    }

    func resolve(_ claims: [(claim: ClaimedFile, contentHash: String)]) throws -> [Resolution] {
        try claims.map { try run.resolve($0.claim.facts, contentHash: $0.contentHash) }
    }

    func write(_ entries: [IndexEntry], completing claims: [ClaimedFile]) throws -> [Bool] {
        let inserted = state.withLock { state in
            state.pending.append(contentsOf: entries)
            state.claimed -= claims.count
            return entries.map { !state.known.contains($0.path) }
        }
        try commit(force: false)
        return inserted
    }

    func imagesWithoutFaces(after path: String?, limit: Int) throws -> [StoredImageFile] {
        try commit(force: true)
        return try index.imagesWithoutFaces(after: path, limit: limit)
    }

    func addFaces(_ found: [FacesFound]) throws -> Int {
        try index.addFaces(found)
    }

    func imagesNotLookedAtThoroughly(after path: String?, limit: Int) throws -> [StoredFaces] {
        try commit(force: true)
        return try index.imagesNotLookedAtThoroughly(after: path, limit: limit)
    }

    func imagesWithUndescribedFaces(after path: String?, limit: Int) throws -> [StoredFaces] {
        try commit(force: true)
        return try index.imagesWithUndescribedFaces(after: path, limit: limit)
    }

    func addDescriptors(_ found: [FacesFound]) throws -> Int {
        try index.addDescriptors(found)
    }

    func imagesWithoutMetadata(after path: String?, limit: Int) throws -> [StoredImageFile] {
        try commit(force: true)
        return try index.imagesWithoutMetadata(after: path, limit: limit)
    }

    func addMetadata(_ found: [MetadataFound]) throws -> Int {
        try index.addMetadata(found)
    }

    /// Commits the pending entries when the batch is full or old enough (or `force`). Unless
    /// forced, a worker finding another one committing goes back to its files: what it added
    /// goes with the next batch (the next write's, or `finish`'s).
    private func commit(force: Bool) throws {
        let body = { (_: inout Void) throws -> Void in
            let batch: [IndexEntry] = self.state.withLock { state in
                let due = state.pending.count >= self.settings.batchSize || ContinuousClock.now - state.lastCommit >= self.settings.batchInterval
                guard !state.pending.isEmpty, force || due else { return [] }
                defer {
                    state.pending.removeAll(keepingCapacity: true)
                    state.lastCommit = .now
                }
                return state.pending
            }
            if !batch.isEmpty { try self.run.write(batch: batch) }
        }
        if force { try committing.withLock(body) } else { _ = try committing.withLockIfAvailable(body) }
    }
}

/// A worker of a ``SQLiteWriterRun``: every call goes to the run (there is no connection of its own).
final class SQLiteWriterWorker: IndexWriterWorker {
    private let run: SQLiteWriterRun

    init(run: SQLiteWriterRun) { self.run = run }

    func plan(_ files: [FileFacts]) async throws -> Int { try run.plan(files) }
    func claim(limit: Int) async throws -> [ClaimedFile] { run.claim(limit: limit) }
    func release(_ claims: [ClaimedFile]) async throws { run.release(claims) }
    func remaining() async throws -> (count: Int, soonestExpiry: Double?) { run.remaining() }
    func resolve(_ claims: [(claim: ClaimedFile, contentHash: String)]) async throws -> [Resolution] { try run.resolve(claims) }
    func write(_ entries: [IndexEntry], completing claims: [ClaimedFile]) async throws -> [Bool] {
        try run.write(entries, completing: claims)
    }
    func imagesWithoutFaces(after path: String?, limit: Int) async throws -> [StoredImageFile] {
        try run.imagesWithoutFaces(after: path, limit: limit)
    }
    func addFaces(_ found: [FacesFound]) async throws -> Int { try run.addFaces(found) }
    func imagesNotLookedAtThoroughly(after path: String?, limit: Int) async throws -> [StoredFaces] {
        try run.imagesNotLookedAtThoroughly(after: path, limit: limit)
    }
    func imagesWithUndescribedFaces(after path: String?, limit: Int) async throws -> [StoredFaces] {
        try run.imagesWithUndescribedFaces(after: path, limit: limit)
    }
    func addDescriptors(_ found: [FacesFound]) async throws -> Int { try run.addDescriptors(found) }
    func imagesWithoutMetadata(after path: String?, limit: Int) async throws -> [StoredImageFile] {
        try run.imagesWithoutMetadata(after: path, limit: limit)
    }
    func addMetadata(_ found: [MetadataFound]) async throws -> Int { try run.addMetadata(found) }
    func close() async {}
}
