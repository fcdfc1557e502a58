/// One indexer's run on an ``IndexWriter``: its roots, its workers and its summary.
///
/// The run ends when its walk is done and nothing is left queued under its roots, whoever
/// queued it; ``finish()`` then removes the files gone from its folders.
///
/// Usage:
/// ```swift
/// let heartbeat = Task { await run.keepClaimsAlive() }
/// let worker = run.makeWorker()
/// // ... plan, claim, resolve, write ...
/// heartbeat.cancel()
/// let summary = try await run.finish()
/// ```
public protocol IndexWriterRun: AnyObject, Sendable {
    /// Leases, patience with server faults, abandoned claims.
    ///
    /// Usage: `if claim.attempts > run.settings.maximumAttempts { ... }`
    var settings: RunSettings { get }

    /// What this process's workers did so far.
    ///
    /// Usage: `print(run.summary)`
    var summary: RunSummary { get }

    /// Renews the leases of this process's claims until the surrounding task is cancelled, so a
    /// file that takes long to classify stays claimed and a dead process's claims run out.
    ///
    /// Usage: `let heartbeat = Task { await run.keepClaimsAlive() }`
    func keepClaimsAlive() async

    /// A new worker with its own connection, used by one task at a time.
    ///
    /// Usage: `let worker = run.makeWorker()`
    func makeWorker() -> any IndexWriterWorker

    /// Removes the files gone from the run's folders and returns the summary.
    ///
    /// Usage: `let summary = try await run.finish()`
    func finish() async throws -> RunSummary

    /// Stops the run without removing anything (an interrupted or failed run).
    ///
    /// Usage: `run.cancel()`
    func cancel()
}

/// One worker of a ``IndexWriterRun``: every call is safe to repeat after a fault.
///
/// Usage:
/// ```swift
/// let claims = try await worker.claim(limit: 32)
/// let resolutions = try await worker.resolve(hashed)
/// _ = try await worker.write(entries, completing: claims)
/// await worker.close()
/// ```
public protocol IndexWriterWorker: AnyObject {
    /// Queues the walked files that need reading (not in the index with the same size, time and
    /// model) and returns how many need it; files outside the run's roots are ignored.
    ///
    /// Usage: `let queued = try await worker.plan(files)`
    @discardableResult
    func plan(_ files: [FileFacts]) async throws -> Int

    /// Claims up to `limit` queued files under the run's roots.
    ///
    /// Usage: `let claims = try await worker.claim(limit: 32)`
    func claim(limit: Int) async throws -> [ClaimedFile]

    /// Gives claims back unprocessed (another worker may take them at once).
    ///
    /// Usage: `try await worker.release(unfinished)`
    func release(_ claims: [ClaimedFile]) async throws

    /// Files still queued under the run's roots, and the seconds until the soonest lease of
    /// another indexer's claim runs out (nil when none is claimed).
    ///
    /// Usage: `let (left, soonest) = try await worker.remaining()`
    func remaining() async throws -> (count: Int, soonestExpiry: Double?)

    /// What the index already holds of each claimed file's content: touched, moved, copied, or
    /// to classify, in the order given.
    ///
    /// Usage: `let resolutions = try await worker.resolve(hashed)`
    func resolve(_ claims: [(claim: ClaimedFile, contentHash: String)]) async throws -> [Resolution]

    /// Writes the entries and takes `claims` off the queue in one transaction; for each entry,
    /// whether it was new to the index.
    ///
    /// Usage: `let inserted = try await worker.write(entries, completing: claims)`
    func write(_ entries: [IndexEntry], completing claims: [ClaimedFile]) async throws -> [Bool]

    /// Classified images under the run's roots that faces were never looked for in, in path
    /// order after `path` (as the index stores paths; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try await worker.imagesWithoutFaces(after: last?.path, limit: 256)`
    func imagesWithoutFaces(after path: String?, limit: Int) async throws -> [StoredImageFile]
    /// Adds faces to images indexed without them (as ``SQLiteIndex/addFaces(_:)``, paths as the
    /// index stores them); returns how many images got faces.
    ///
    /// Usage: `let added = try await worker.addFaces(found)`
    @discardableResult
    func addFaces(_ found: [FacesFound]) async throws -> Int
    /// Classified images under the run's roots whose faces the fast detector alone looked for
    /// (to be looked at by `index --faces thorough`), in path order after `path` (as the index
    /// stores paths; nil: from the start), at most `limit`, with their stored faces.
    ///
    /// Usage: `let page = try await worker.imagesNotLookedAtThoroughly(after: last?.path, limit: 64)`
    func imagesNotLookedAtThoroughly(after path: String?, limit: Int) async throws -> [StoredFaces]
    /// Classified images under the run's roots whose stored faces have no descriptors, in path
    /// order after `path` (as the index stores paths; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try await worker.imagesWithUndescribedFaces(after: last?.path, limit: 64)`
    func imagesWithUndescribedFaces(after path: String?, limit: Int) async throws -> [StoredFaces]
    /// Stores descriptors for faces stored without them (as ``SQLiteIndex/addDescriptors(_:)``,
    /// paths as the index stores them); returns how many images got them.
    ///
    /// Usage: `let described = try await worker.addDescriptors(found)`
    @discardableResult
    func addDescriptors(_ found: [FacesFound]) async throws -> Int
    /// Classified images under the run's roots whose metadata was never read, in path order after
    /// `path` (as the index stores paths; nil: from the start), at most `limit`.
    ///
    /// Usage: `let page = try await worker.imagesWithoutMetadata(after: last?.path, limit: 256)`
    func imagesWithoutMetadata(after path: String?, limit: Int) async throws -> [StoredImageFile]
    /// Stores metadata for images indexed without it (as ``SQLiteIndex/addMetadata(_:)``, paths as
    /// the index stores them); returns how many images got it.
    ///
    /// Usage: `let added = try await worker.addMetadata(found)`
    @discardableResult
    func addMetadata(_ found: [MetadataFound]) async throws -> Int
    /// Gives back the worker's connection.
    ///
    /// Usage: `await worker.close()`
    func close() async
}
