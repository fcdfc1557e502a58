import Classify
import ClassifySupport
import Foundation
import TagIndex

/// Keeps a shared index (a ``SharedIndex``: PostgreSQL) in sync with folders, side by side with any
/// number of other indexers (processes on this machine or others, over the same or overlapping folders).
///
/// One task walks the folders and queues what needs reading (see ``SharedIndexRun``);
/// `jobs` workers, each with its own connection, claim a batch of queued files at a time (32 by
/// default), read and hash each once, let the index recognise touched, moved and copied files by
/// their content hash (one look for the whole batch), classify the rest, and write the batch,
/// one statement per table, in the transaction that takes it off the queue.
/// The run ends when its walk is done and nothing is left queued under its roots, whoever
/// queued it: files claimed by indexers that were killed are taken over when their leases
/// expire. Then files gone from its folders are removed.
///
/// A worker that loses the server (a restart, the network) reconnects with backoff and goes on;
/// cancelling the surrounding task stops claiming, writes what is finished and gives the other
/// claims back. The result of a run is a ``FolderIndexer/Report``, as for a SQLite index.
///
/// ```swift
/// let indexer = SharedFolderIndexer(database: try IndexOpener.standard.sharedIndex(at: location), classifier: try ImageClassifier())
/// let report = try await indexer.run(SharedFolderIndexer.Options(roots: [try LibraryRoot(parsing: "photos=/mnt/nas/photos")]))
/// print(report.summary)
/// ```
public struct SharedFolderIndexer: Sendable {
    /// What to index and how.
    public struct Options: Sendable {
        public var roots: [LibraryRoot]
        /// Workers (images classified at once; default: number of cores).
        public var jobs: Int?
        public var includeHidden = false
        /// `fnmatch` patterns matched against names and full paths.
        public var excludes: [String] = []
        /// Files a worker claims at once (and writes in one transaction).
        public var claimSize = 32
        /// Walked files are queued this many at a time.
        public var planChunkSize = 256
        /// Leases, patience with server faults, abandoned claims.
        public var settings = SharedRunSettings()
        /// How often an idle worker looks at the queue again.
        public var pollInterval: Duration = .milliseconds(200)
        /// Called (from the walk) with each file passed over as not an image.
        public var skippedFile: (@Sendable (String) -> Void)?

        /// Usage: `var options = SharedFolderIndexer.Options(roots: roots, jobs: 2)`
        public init(roots: [LibraryRoot], jobs: Int? = nil, includeHidden: Bool = false, excludes: [String] = []) {
            self.roots = roots
            self.jobs = jobs
            self.includeHidden = includeHidden
            self.excludes = excludes
        }
    }

    /// The index the run fills.
    public let database: any SharedIndex
    public let classifier: ImageClassifier
    public let vocabulary: IndexVocabulary
    /// Finds and stores the faces of every classified image, and of the images under the run's
    /// roots the index holds without faces; nil skips faces.
    public let faceDetector: FaceDetector?

    /// Usage: `SharedFolderIndexer(database: shared, classifier: classifier)`
    public init(database: any SharedIndex, classifier: ImageClassifier, faceDetector: FaceDetector? = nil) {
        self.database = database
        self.classifier = classifier
        self.faceDetector = faceDetector
        vocabulary = IndexVocabulary(model: classifier.model, faces: faceDetector != nil)
    }

    /// What the workers of this process did, for the report and progress.
    private struct Tally {
        var report = FolderIndexer.Report(summary: RunSummary())
        var progress = FolderIndexer.Progress()
    }

    /// Runs one index pass. `progress` is called after every batch a worker writes.
    public func run(_ options: Options, progress: @escaping @Sendable (FolderIndexer.Progress) -> Void = { _ in }) async throws -> FolderIndexer.Report {
        let clock = ContinuousClock()
        let start = clock.now
        let run = try await database.beginRun(
            roots: options.roots, labels: vocabulary.labelDefinitions, model: vocabulary.stamp,
            vocabulary: vocabulary.searchWords, settings: options.settings)
        let scan = ScanState()
        let tally = Locked(Tally())
        let jobs = min(ClassificationPipeline.maximumJobs, max(1, options.jobs ?? ProcessInfo.processInfo.activeProcessorCount))
        if jobs > 1 { ComputeThreads.configure(1) }
        do {
            // What each batch (or the walk's unreadable paths) adds to this process's report.
            let record: @Sendable (Int, [FolderIndexer.Failure], Int, Int) -> Void = { done, failures, new, updated in
                let snapshot = tally.withLock { tally in
                    tally.progress.done += done
                    tally.progress.failed += failures.count
                    tally.report.new += new
                    tally.report.updated += updated
                    for failure in failures where tally.report.failures.count < FolderIndexer.failureSampleLimit {
                        tally.report.failures.append(failure)
                    }
                    let scanned = scan.snapshot()
                    tally.progress.scanned = scanned.scanned
                    tally.progress.candidates = scanned.candidates
                    tally.progress.scanComplete = scanned.complete
                    tally.progress.elapsed = clock.now - start
                    return tally.progress
                }
                progress(snapshot)
            }
            // Leases stay alive while files are read and classified, however long one takes.
            let heartbeat = Task { await run.keepClaimsAlive() }
            defer { heartbeat.cancel() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await walk(run, options, scan, problems: record) }
                for _ in 0..<jobs {
                    group.addTask { try await work(run, options, scan, finished: record) }
                }
                try await group.waitForAll()
            }
        } catch {
            run.cancel()
            throw error
        }
        var report = tally.withLock { $0.report }
        if let faceDetector, !Task.isCancelled, scan.snapshot().complete {
            // Images indexed without faces get them now (another indexer doing the same at once
            // only repeats work: each write checks that the image still has no faces).
            let worker = run.makeWorker()
            do {
                let roots = options.roots
                report.facesAdded = try await FaceBackfill(detector: faceDetector, decoder: classifier.decoder, jobs: jobs).run(
                    page: { after in try await worker.imagesWithoutFaces(after: after, limit: 64) },
                    localPath: { roots.localPath(forLibrary: $0) },
                    write: { try await worker.addFaces($0) })
            } catch {
                await worker.close()
                run.cancel()
                throw error
            }
            await worker.close()
        }
        let interrupted = Task.isCancelled || !scan.snapshot().complete
        if interrupted {
            report.summary = run.summary
            run.cancel()
        } else {
            report.summary = try await run.finish()
        }
        report.interrupted = interrupted
        report.skippedNonImages = scan.snapshot().skipped
        report.elapsed = clock.now - start
        return report
    }

    /// Walks the roots and queues what needs reading; paths the walk could not use are written
    /// as failures at once.
    private func walk(
        _ run: any SharedIndexRun, _ options: Options, _ scan: ScanState, problems reported: @Sendable (Int, [FolderIndexer.Failure], Int, Int) -> Void
    ) async throws {
        let worker = run.makeWorker()
        do {
            var walk = ImageFileWalker(
                paths: options.roots.map { $0.localPath.isEmpty ? "/" : $0.localPath }, includeHidden: options.includeHidden,
                excludes: options.excludes)
            walk.reportsSkipped = true
            var iterator = walk.makeIterator()
            var finished = false
            while !finished, !Task.isCancelled {
                var files: [FileFacts] = []
                var problems: [IndexEntry] = []
                var skipped = 0
                while files.count < options.planChunkSize, !Task.isCancelled {
                    guard let entry = iterator.next() else {
                        finished = true
                        break
                    }
                    switch entry {
                    case .file(let file):
                        files.append(FileFacts(path: file.path, size: file.size, modificationTime: Date(timeIntervalSince1970: file.modificationTime)))
                    case .problem(let path, let reason):
                        let facts = FileFacts(path: path, size: 0, modificationTime: Date(timeIntervalSince1970: 0))
                        problems.append(vocabulary.entry(for: ClassificationError(stage: .read, reason: reason), file: facts, contentHash: nil))
                    case .skipped(let path):
                        skipped += 1
                        options.skippedFile?(path)
                    }
                }
                let queued = try await worker.plan(files)
                let known = problems.filter { options.roots.libraryPath(forLocal: $0.path) != nil }
                if !known.isEmpty {
                    try await worker.write(known, completing: [])
                    reported(known.count, known.compactMap { entry in
                        guard case .failed(let failure) = entry else { return nil }
                        return FolderIndexer.Failure(path: failure.path, stage: failure.stage, reason: failure.reason)
                    }, 0, 0)
                }
                let complete = finished && !Task.isCancelled
                scan.update { snapshot in
                    snapshot.skipped += skipped
                    snapshot.scanned += files.count + problems.count
                    snapshot.candidates += queued
                    if complete { snapshot.complete = true }
                }
            }
        } catch {
            await worker.close()
            scan.update { $0.error = error }
            throw error
        }
        await worker.close()
    }

    /// One worker: claims, reads, resolves, classifies and writes until nothing is left under
    /// the run's roots (or the run is cancelled). After each batch, `finished(done, failures,
    /// new, updated)`: files finished, those that failed, classified files new to the index and
    /// classified files it held before.
    private func work(
        _ run: any SharedIndexRun, _ options: Options, _ scan: ScanState,
        finished: @Sendable (Int, [FolderIndexer.Failure], Int, Int) -> Void
    ) async throws {
        let worker = run.makeWorker()
        do {
            while !Task.isCancelled {
                let claims = try await worker.claim(limit: options.claimSize)
                if claims.isEmpty {
                    let snapshot = scan.snapshot()
                    if !snapshot.complete {
                        if snapshot.error != nil { break }
                        try? await Task.sleep(for: options.pollInterval)
                        continue
                    }
                    let (left, soonest) = try await worker.remaining()
                    if left == 0 { break }
                    // Others hold the rest: wait for them to finish, or for a lease to run out.
                    let wait = min(1.0, max(0.05, soonest ?? 0.05))
                    try? await Task.sleep(for: .milliseconds(Int(wait * 1000)))
                    continue
                }
                // Every claimed file is read and hashed first, so one look at the index tells
                // which of them it already holds (touched, moved, copied); the rest are classified.
                var read: [(claim: ClaimedFile, file: ReadFile)] = []
                for claim in claims {
                    if Task.isCancelled { break }
                    read.append((claim, self.read(claim, run)))
                }
                let hashed = read.compactMap { claim, file -> (claim: ClaimedFile, contentHash: String)? in
                    if case .bytes(_, let hash) = file { (claim, hash) } else { nil }
                }
                var resolutions: [String: Resolution] = [:]
                for (item, resolution) in zip(hashed, try await worker.resolve(hashed)) { resolutions[item.claim.libraryPath] = resolution }
                var entries: [IndexEntry] = []
                var processed: [ClaimedFile] = []
                for (claim, file) in read {
                    switch file {
                    case .failed(let entry): entries.append(entry)
                    case .bytes(let bytes, let hash):
                        if resolutions[claim.libraryPath] == .classify { entries.append(classify(bytes, hash: hash, claim.facts)) }
                    }
                    processed.append(claim)
                }
                let inserted = try await worker.write(entries, completing: processed)
                try await worker.release(claims.filter { !processed.contains($0) })
                var failures: [FolderIndexer.Failure] = []
                var new = 0, updated = 0
                for (entry, isNew) in zip(entries, inserted) {
                    switch entry {
                    case .classified: if isNew { new += 1 } else { updated += 1 }
                    case .failed(let failure): failures.append(FolderIndexer.Failure(path: failure.path, stage: failure.stage, reason: failure.reason))
                    }
                }
                finished(processed.count, failures, new, updated)
            }
        } catch {
            await worker.close()
            throw error
        }
        await worker.close()
    }

    /// A claimed file after reading: its bytes and content hash, or the failure to write for it.
    private enum ReadFile {
        case bytes([UInt8], hash: String)
        case failed(IndexEntry)
    }

    /// Reads and hashes a claimed file, or says why it cannot be indexed.
    private func read(_ claim: ClaimedFile, _ run: any SharedIndexRun) -> ReadFile {
        let facts = claim.facts
        if claim.attempts > run.settings.maximumAttempts {
            let error = ClassificationError(
                stage: .read,
                reason: "indexers stopped \(claim.attempts - 1) times while working on this file (killed or crashed); it is tried again when it changes")
            return .failed(vocabulary.entry(for: error, file: facts, contentHash: nil))
        }
        let bytes: [UInt8]
        do throws(ImageDecodingError) {
            bytes = try classifier.decoder.readFile(at: URL(fileURLWithPath: facts.path))
        } catch {
            return .failed(vocabulary.entry(for: ClassificationError(error), file: facts, contentHash: nil))
        }
        if bytes.count != Int(facts.size) {
            let error = ClassificationError(stage: .read, reason: "the file changed size since it was queued (\(facts.size) -> \(bytes.count) bytes); it will be indexed again on the next run")
            return .failed(vocabulary.entry(for: error, file: facts, contentHash: nil))
        }
        return .bytes(bytes, hash: ContentHash.hex(of: bytes))
    }

    /// The classification (with faces, when they are looked for) or failure of a file's bytes.
    private func classify(_ bytes: [UInt8], hash: String, _ facts: FileFacts) -> IndexEntry {
        do throws(ClassificationError) {
            let (result, faces) = try classifier.classify(data: bytes, findingFacesWith: faceDetector)
            return vocabulary.entry(for: result, faces: faces, file: facts, contentHash: hash)
        } catch {
            return vocabulary.entry(for: error, file: facts, contentHash: hash)
        }
    }
}
