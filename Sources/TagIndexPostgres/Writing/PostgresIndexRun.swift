import TagIndex
import ClassifySupport
import Foundation
import PostgresNIO

/// One index run on a shared PostgreSQL index, with any number of other runs (on this machine or
/// others, over the same or overlapping folders) working at the same time.
///
/// The walk queues what needs reading (new, changed, or from another model) in `index_queue`;
/// workers (``PostgresIndexWorker``, one connection each) claim queued files with a lease
/// (`FOR UPDATE SKIP LOCKED`, so no file is handed to two workers at once), which the run's
/// heartbeat (``keepClaimsAlive()``) renews while they work, and write each result in the
/// transaction that takes the file off the queue. A worker
/// killed mid-run leaves claims whose leases expire; any run then takes them over. Writes
/// replace what a path held, so a file written twice (a lease that ran out under a slow worker)
/// still ends as one row. A file whose claims were abandoned `RunSettings.maximumAttempts` times
/// (its worker died each time) is stored as failed instead of being tried forever.
///
/// Paths in the index are library paths (see `LibraryRoot`); workers read the files through
/// this machine's roots.
///
/// Usage:
/// ```swift
/// let run = try await PostgresIndexRun.begin(descriptor, roots: [try LibraryRoot(parsing: "photos=/mnt/nas/photos")],
///                                            labels: definitions, model: stamp, vocabulary: words)
/// let worker = run.makeWorker()
/// _ = try await worker.plan(scannedFiles)
/// for claim in try await worker.claim(limit: 4) { /* read, hash, resolve, classify */ }
/// try await worker.write(entries, completing: claims)
/// let summary = try await run.finish()
/// ```
public final class PostgresIndexRun: IndexWriterRun {
    /// The database.
    public let descriptor: PostgresDescriptor
    /// The folders of this run, as this machine sees them.
    public let roots: [LibraryRoot]
    /// The model stamp stored with every result.
    public let model: ModelStamp
    /// Leases, patience with server faults, abandoned claims.
    public let settings: RunSettings
    /// Names this run's workers in `index_queue.claimed_by`: host, process and a random part.
    public let identity: String
    /// When the run began (rows indexed later are never removed by its sweep).
    let startedAt = Timestamps.microseconds(Date())

    struct State {
        var summary = RunSummary()
        var seen = Set<UInt64>()
        var taxonomy: TaxonomySnapshot
        var modelID: Int64
        var finished = false
        var workers = 0
        /// The claims this process's workers hold: library path -> worker name.
        var held: [String: String] = [:]
    }
    let state: Locked<State>

    private init(descriptor: PostgresDescriptor, roots: [LibraryRoot], model: ModelStamp, settings: RunSettings, taxonomy: TaxonomySnapshot, modelID: Int64) {
        self.descriptor = descriptor
        self.roots = roots
        self.model = model
        self.settings = settings
        let process = ProcessInfo.processInfo
        identity = "\(process.hostName):\(process.processIdentifier):\(UUID().uuidString.prefix(8).lowercased())"
        state = Locked(State(taxonomy: taxonomy, modelID: modelID))
    }

    /// Connects (a clear error naming host and port within 10 s when the server cannot be
    /// reached), brings the schema up to date and installs the taxonomy (once, whatever the
    /// number of runs starting together).
    ///
    /// Usage: `let run = try await PostgresIndexRun.begin(descriptor, roots: roots, labels: labels, model: stamp, vocabulary: words)`
    public static func begin(
        _ descriptor: PostgresDescriptor, roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp,
        vocabulary: [VocabularyWord] = [], settings: RunSettings = RunSettings()
    ) async throws -> PostgresIndexRun {
        guard !roots.isEmpty else { throw TagIndexError.invalidInput("an index run needs at least one folder") }
        let names = roots.compactMap(\.name)
        guard Set(names).count == names.count else { throw TagIndexError.invalidInput("two library roots have the same name") }
        let session = try await PostgresSession.connect(descriptor)
        do {
            try await PostgresSchema.migrate(session)
            try await PostgresTaxonomyWriter.install(labels, model: model, vocabulary: vocabulary, session)
            let taxonomy = try TaxonomySnapshot.build(try await PostgresTaxonomy.rows(session))
            var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
            let modelID = try await writer.modelID(model)
            await session.close()
            return PostgresIndexRun(descriptor: descriptor, roots: roots, model: model, settings: settings, taxonomy: taxonomy, modelID: modelID)
        } catch {
            await session.close()
            throw error
        }
    }

    /// The model stamp of the taxonomy last installed in the database (as
    /// ``SQLiteIndex/installedModel()``), nil for a database never indexed into; connecting fails
    /// within 10 s, naming host and port, when the server cannot be reached.
    ///
    /// Usage: `let stamp = try await PostgresIndexRun.installedModel(descriptor)`
    public static func installedModel(_ descriptor: PostgresDescriptor) async throws -> String? {
        let session = try await PostgresSession.connect(descriptor)
        defer { Task { await session.close() } }
        guard try await session.all("SELECT to_regclass('meta') IS NOT NULL", PostgresBindings(), { try $0.decode(Bool.self) }).first == true else { return nil }
        return try await session.all("SELECT value FROM meta WHERE key = 'taxonomy_model'") { try $0.decode(String?.self) }.first ?? nil
    }

    /// Renews the leases of every claim this process's workers hold, every third of the lease,
    /// on a connection of its own, until the surrounding task is cancelled: a file that takes
    /// longer than a lease to read and classify stays claimed, and the leases of a process that
    /// dies run out. A failed renewal is tried again
    /// at the next beat.
    ///
    /// Usage: `let heartbeat = Task { await run.keepClaimsAlive() }; defer { heartbeat.cancel() }`
    public func keepClaimsAlive() async {
        let session = ReconnectingSession(descriptor, patience: settings.lease / 3)
        let seconds = settings.leaseSeconds
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: settings.lease / 3)
            } catch {
                break
            }
            let held = state.withLock { $0.held }.sorted { $0.key < $1.key }
            guard !held.isEmpty else { continue }
            var binds = PostgresBindings()
            binds.append(seconds)
            binds.append(held.map(\.key))
            binds.append(held.map(\.value))
            _ = try? await session.run { session in
                try await session.execute("""
                    UPDATE index_queue AS q SET lease_until = now() + make_interval(secs => $1)
                    FROM unnest($2::text[], $3::text[]) AS c(path, worker) WHERE q.path = c.path AND q.claimed_by = c.worker
                    """, binds)
            }
            // A few blocks written meanwhile into the postings, so searches during a long run
            // keep reading compact blocks (``finish()`` compacts the rest).
            _ = try? await session.run { session in
                try await PostgresPostings.compact(session, maximumBlocks: PostgresPostings.blocksPerHeartbeat, waiting: false)
            }
        }
        await session.close()
    }

    /// Notes claims taken (`name` non-nil) or given up by a worker, for ``keepClaimsAlive()``.
    func hold(_ paths: [String], by name: String?) {
        state.withLock { state in
            for path in paths { state.held[path] = name }
        }
    }

    /// A worker with its own connection (use it from one task).
    ///
    /// Usage: `let worker = run.makeWorker()`
    public func makeWorker() -> any IndexWriterWorker {
        let number = state.withLock { state in
            state.workers += 1
            return state.workers
        }
        return PostgresIndexWorker(run: self, name: "\(identity)/\(number)")
    }

    /// The counts so far (the final ones come from ``finish()``).
    public var summary: RunSummary { state.withLock { $0.summary } }

    static func pathKey(_ path: String) -> UInt64 {
        var hasher = ContentHash()
        hasher.update(path.utf8)
        return hasher.finalize()
    }

    /// `(path = $a OR (path >= $b AND path < $c)) OR ...` over this run's roots, comparing
    /// bytewise; binds appended to `binds`.
    func rootCondition(column: String, _ binds: inout PostgresBindings) -> String {
        var alternatives: [String] = []
        for root in roots {
            if root.name == nil {
                binds.append(root.localPath)
                alternatives.append("\(column) = $\(binds.count)")
            }
            binds.append(root.libraryPrefix + "/")
            binds.append(root.libraryPrefix + "0")
            alternatives.append("(\(column) >= $\(binds.count - 1) AND \(column) < $\(binds.count))")
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// Removes indexed files under the roots that this run's walk did not see and that are gone
    /// from disk (rows written since the run began are kept: another run may have just found
    /// them), and returns the summary. Call it once every worker is done.
    ///
    /// Usage: `let summary = try await run.finish()`
    public func finish() async throws -> RunSummary {
        guard !state.withLock({ $0.finished }) else { throw TagIndexError.runFinished }
        let seen = state.withLock { $0.seen }
        let session = ReconnectingSession(descriptor, patience: settings.patience)
        let removed: Int
        do {
            removed = try await sweep(seen, session)
            // What this run (and any other since the last compaction) wrote, into the postings.
            _ = try await session.run { session in try await PostgresPostings.compact(session) }
            await session.close()
        } catch {
            await session.close()
            throw error
        }
        return state.withLock { state in
            state.finished = true
            state.summary.removed = removed
            return state.summary
        }
    }

    /// Deletes the unseen rows whose files are gone; returns how many.
    private func sweep(_ seen: Set<UInt64>, _ session: ReconnectingSession) async throws -> Int {
        var binds = PostgresBindings()
        binds.append(startedAt)
        let condition = rootCondition(column: "path COLLATE \"C\"", &binds)
        let rows = try await session.run { session in
            try await session.all("SELECT id, path FROM images WHERE indexed_at < $1 AND \(condition)", binds) { try $0.decode((Int64, String).self) }
        }
        let unseen = rows.filter { id, path in
            guard !seen.contains(Self.pathKey(path)) else { return false }
            guard let local = roots.localPath(forLibrary: path) else { return false }
            return !RawPath.exists(local)
        }.map(\.0)
        let taxonomy = state.withLock { $0.taxonomy }
        for start in stride(from: 0, to: unseen.count, by: 500) {
            let chunk = Array(unseen[start..<min(start + 500, unseen.count)])
            try await session.transaction { session in
                var writer = PostgresBatchWriter(session, taxonomy: taxonomy)
                try await writer.deleteImages(chunk)
                try await writer.flushCounts()
            }
        }
        return unseen.count
    }

    /// Ends the run without removing anything (claims still held are released by their workers).
    ///
    /// Usage: `run.cancel()`
    public func cancel() {
        state.withLock { $0.finished = true }
    }
}

extension RunSettings {
    /// The lease in seconds, as SQL intervals take it.
    var leaseSeconds: Double {
        let components = lease.components
        return Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
