import Classify
import ClassifySupport
import Foundation
import TagIndex

/// Keeps an index in sync with folders, whichever database holds it: it drives any
/// ``IndexWriter`` (a SQLite file, or a database server that other indexers fill at the same
/// time, on this machine and others) through the same steps, and a program opens the index with
/// ``IndexOpener`` and never asks which database it has.
///
/// One task walks the folders and queues what the index says needs reading (new, changed, or
/// from another model); `jobs` workers claim queued files a few at a time, read and hash each
/// once (hash and decode share the bytes), let the index recognise touched, moved and copied
/// files by their content hash, classify the rest (labels, feature print, colors and, unless
/// turned off, faces) and write them. When the walk is done and nothing is left queued, files
/// gone from the folders are removed, and images the index holds without faces get them.
///
/// Memory is bounded by the files in flight (per job, the bytes of a claim up to
/// ``Options/heldBytes``), not by the folder: the walk streams and is planned in chunks.
/// Cancelling the surrounding task stops claiming; what is finished is still written, the run
/// ends without removing anything, and the next run resumes, skipping every file already written.
/// A file that cannot be read or decoded is written
/// as a failure (stage and reason) and the run goes on; a database that refuses a write (disk
/// full, read-only, damaged: ``TagIndexError/storage(path:reason:)``) ends the run at once,
/// keeping every batch committed before. On a server, files claimed by indexers that were killed
/// are taken over when their leases run out, and a worker that loses the server reconnects.
///
/// ```swift
/// let indexer = try LibraryIndexer(location: .sqlite(url), opener: .standard)
/// let report = try await indexer.run(LibraryIndexer.Options(roots: [try LibraryRoot(parsing: "/home/me/Pictures")]),
///                                    classifier: try ImageClassifier())
/// print(report.summary)
/// ```
public struct LibraryIndexer: Sendable {
    /// What to index and how.
    public struct Options: Sendable {
        /// The folders. A named root (`photos=/mnt/photos`) needs a shared index; a SQLite file
        /// stores absolute paths.
        public var roots: [LibraryRoot]
        /// Workers: images classified at once (default: number of cores).
        public var jobs: Int?
        public var includeHidden = false
        /// `fnmatch` patterns matched against names and full paths.
        public var excludes: [String] = []
        /// Files a worker claims (and hands to the index) at once; nil: the index's
        /// ``IndexWriter/preferredClaimSize`` (one for a SQLite file, 32 for a server).
        public var claimSize: Int?
        /// Bytes of a claim's files a worker keeps between hashing them and classifying them: the
        /// files read beyond it (a server's claim of 32 raw files is 800 MB) are hashed, let go and
        /// read again when their turn comes, and fail as changed if their bytes differ by then.
        /// The first file of a claim is always kept, so a claim of one never reads twice.
        public var heldBytes = 48 << 20
        /// Walked files are planned against the index this many at a time.
        public var planChunkSize = 256
        /// Leases, patience with server faults, abandoned claims, SQLite's batches.
        public var settings = RunSettings()
        /// How often an idle worker looks at the queue again while the walk goes on (it also looks
        /// as soon as the walk queues files or ends; the poll is for files other indexers queue).
        public var pollInterval: Duration = .milliseconds(200)
        /// Called (from the walk) with each file passed over as not an image: no image extension
        /// and no image signature. ``Report/skippedNonImages`` counts them either way.
        /// Usage: `options.skippedFile = { path in print("not an image:", path) }`
        public var skippedFile: (@Sendable (String) -> Void)?

        /// Usage: `var options = LibraryIndexer.Options(roots: [try LibraryRoot(parsing: folder)], jobs: 2)`
        public init(roots: [LibraryRoot], jobs: Int? = nil, includeHidden: Bool = false, excludes: [String] = []) {
            self.roots = roots
            self.jobs = jobs
            self.includeHidden = includeHidden
            self.excludes = excludes
        }

        /// Options for unnamed folders given by path.
        ///
        /// Usage: `let options = try LibraryIndexer.Options(folders: ["/home/me/Pictures"], jobs: 2)`
        public init(folders: [String], jobs: Int? = nil, includeHidden: Bool = false, excludes: [String] = []) throws {
            self.init(
                roots: try folders.map { try LibraryRoot(name: nil, localPath: $0) }, jobs: jobs, includeHidden: includeHidden,
                excludes: excludes)
        }
    }

    /// Where the runs write.
    public let index: any IndexWriter

    /// Opens the index at `location` for index runs (a SQLite file is created when there is none).
    ///
    /// Usage: `let indexer = try LibraryIndexer(location: .sqlite(url), opener: IndexOpener())`
    public init(location: IndexLocation, opener: IndexOpener) throws {
        index = try opener.openForIndexing(location)
    }

    /// Runs on an index already opened.
    ///
    /// Usage: `let indexer = LibraryIndexer(index: try SQLiteIndex(url: url))`
    public init(index: any IndexWriter) {
        self.index = index
    }

    /// Fails, saying why, when an index at `location` cannot take `roots`: a named root needs a
    /// shared index (a SQLite file stores absolute paths). Call it before opening, so nothing is
    /// created for a run that cannot start.
    ///
    /// Usage: `try LibraryIndexer.check(roots, for: location)`
    public static func check(_ roots: [LibraryRoot], for location: IndexLocation) throws {
        guard case .sqlite = location, let named = roots.first(where: { $0.name != nil }) else { return }
        throw TagIndexError.namedRootOnFile(named)
    }

    /// The model stamp of the taxonomy last installed, nil for an index never indexed into (the
    /// first look at a server: one that cannot be reached fails here).
    ///
    /// Usage: `let faces = IndexVocabulary.hasFaces(stamp: try await indexer.installedModel())`
    public func installedModel() async throws -> String? {
        try await index.installedModel()
    }

    /// What the workers of this process did, for the report and progress.
    private struct Tally {
        var report = Report(summary: RunSummary())
        var progress = Progress()
    }

    /// Runs one index pass over `options.roots` with `classifier` and, when given, `faceDetector`
    /// (nil: faces are not looked for, and the faces stored by earlier runs stay),
    /// `thoroughFaceDetector` (a second, slower look, MTCNN for `index --faces thorough`: the faces
    /// it finds that `faceDetector` did not are added, in new photos and in photos indexed before
    /// without it, whose stored faces keep their numbers; ignored without `faceDetector`) and
    /// `faceRecognizer` (each face found gets its descriptor; faces stored without one get it
    /// too, from their stored boxes; loaded only when a face needs describing). Each file's
    /// date taken, position, camera and place go through `metadata` (nil: not read, and what
    /// earlier runs stored stays). `progress` is called as files are written.
    ///
    /// Usage: `let report = try await indexer.run(options, classifier: classifier, faceDetector: detector) { print($0.done) }`
    public func run(
        _ options: Options, classifier: ImageClassifier, faceDetector: FaceDetector? = nil, thoroughFaceDetector: FaceDetector? = nil,
        faceRecognizer: OnDemandRecognizer? = nil, metadata: PhotoMetadataReader? = .shared,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Report {
        let begun = try await begin(options, vocabulary: IndexVocabulary(model: classifier.model, faces: faceDetector != nil))
        return try await run(
            begun, classifier: classifier, faceDetector: faceDetector, thoroughFaceDetector: thoroughFaceDetector,
            faceRecognizer: faceRecognizer, metadata: metadata, progress: progress)
    }

    /// An index run begun by ``begin(_:vocabulary:)``: the index is held for it and has the
    /// vocabulary's taxonomy; ``run(_:classifier:faceDetector:thoroughFaceDetector:faceRecognizer:metadata:progress:)``
    /// does the rest, or ``cancel()`` gives the index up.
    ///
    /// Usage: `let begun = try await indexer.begin(options, vocabulary: vocabulary)`
    public struct BegunRun: Sendable {
        fileprivate let run: any IndexWriterRun
        fileprivate let options: Options
        fileprivate let vocabulary: IndexVocabulary
        fileprivate let start: ContinuousClock.Instant

        /// Ends the run without indexing (its lock released, nothing written).
        ///
        /// Usage: `begun.cancel()`
        public func cancel() { run.cancel() }
    }

    /// Begins a run over `options.roots` for a model of `vocabulary` (faces stored when it has the
    /// face label), before the model's network is needed: the taxonomy goes into the index (in a
    /// new index, tens of milliseconds) while the network still compiles (``ImageClassifierModel/Loading``).
    ///
    /// Usage: `let begun = try await indexer.begin(options, vocabulary: IndexVocabulary(labelSet: labels, description: description, faces: true))`
    public func begin(_ options: Options, vocabulary: IndexVocabulary) async throws -> BegunRun {
        let start = ContinuousClock.now
        // Without faces the face label (below person) stays in the taxonomy while images carry
        // it: the entries are the same either way.
        var vocabulary = vocabulary
        if !vocabulary.faces, try await index.labelImageCounts()[IndexVocabulary.faceLabel, default: 0] > 0 {
            vocabulary = IndexVocabulary(labelSet: vocabulary.labelSet, description: vocabulary.modelDescription, faces: true)
        }
        let run = try await index.beginRun(
            roots: options.roots, labels: vocabulary.labelDefinitions, model: vocabulary.stamp,
            vocabulary: vocabulary.searchWords, settings: options.settings)
        return BegunRun(run: run, options: options, vocabulary: vocabulary, start: start)
    }

    /// Runs the index pass `begun` with `classifier`, a model of its vocabulary (otherwise the
    /// run is cancelled and this throws); the rest as ``run(_:classifier:faceDetector:thoroughFaceDetector:faceRecognizer:metadata:progress:)``.
    ///
    /// Usage: `let report = try await indexer.run(begun, classifier: ImageClassifier(model: try loading.model()))`
    public func run(
        _ begun: BegunRun, classifier: ImageClassifier, faceDetector: FaceDetector? = nil, thoroughFaceDetector: FaceDetector? = nil,
        faceRecognizer: OnDemandRecognizer? = nil, metadata: PhotoMetadataReader? = .shared,
        progress: @escaping @Sendable (Progress) -> Void = { _ in }
    ) async throws -> Report {
        let (run, options, vocabulary) = (begun.run, begun.options, begun.vocabulary)
        let model = classifier.model.description
        guard model.name == vocabulary.modelDescription.name, model.modelVersion == vocabulary.modelDescription.modelVersion,
            classifier.model.labelSet.taxonomy.labels.count == vocabulary.labelSet.taxonomy.labels.count
        else {
            run.cancel()
            throw TagIndexError.invalidInput(
                "the run was begun for \(vocabulary.stamp.name) \(vocabulary.modelDescription.modelVersion), not \(model.name) \(model.modelVersion)")
        }
        let thoroughFaceDetector = faceDetector == nil ? nil : thoroughFaceDetector
        let clock = ContinuousClock()
        let start = begun.start
        let pass = Pass(
            classifier: classifier, faceDetector: faceDetector, thoroughFaceDetector: thoroughFaceDetector, faceRecognizer: faceRecognizer,
            metadataReader: metadata, vocabulary: vocabulary, options: options,
            claimSize: max(1, options.claimSize ?? index.preferredClaimSize))
        let scan = ScanState()
        let tally = Locked(Tally())
        let jobs = min(ClassificationPipeline.maximumJobs, max(1, options.jobs ?? ProcessInfo.processInfo.activeProcessorCount))
        if jobs > 1 { ComputeThreads.configure(1) }
        do {
            // What each batch (or the walk's unreadable paths) adds to this process's report.
            let record: @Sendable (Int, [Failure], Int, Int) -> Void = { done, failures, new, updated in
                let snapshot = tally.withLock { tally in
                    tally.progress.done += done
                    tally.progress.failed += failures.count
                    tally.report.new += new
                    tally.report.updated += updated
                    for failure in failures where tally.report.failures.count < Self.failureSampleLimit {
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
            // The heartbeat holds the run (and so the database) until it returns: it is awaited, so
            // the database closes, and SQLite folds its WAL into the file, before the process ends.
            let heartbeat = Task { await run.keepClaimsAlive() }
            var failure: (any Error)?
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await pass.walk(run, scan, problems: record) }
                    for _ in 0..<jobs {
                        group.addTask { try await pass.work(run, scan, finished: record) }
                    }
                    try await group.waitForAll()
                }
            } catch {
                failure = error
            }
            heartbeat.cancel()
            await heartbeat.value
            if let failure { throw failure }
        } catch {
            run.cancel()
            throw error
        }
        var report = tally.withLock { $0.report }
        if let metadata, !Task.isCancelled, scan.snapshot().complete, !scan.snapshot().interrupted {
            // Images indexed before the index stored dates, positions and cameras get them now.
            report.metadataAdded = try await fill(
                Backfill.metadata(reader: metadata, decoder: classifier.decoder, jobs: jobs), run, roots: options.roots,
                page: { worker, after in try await worker.imagesWithoutMetadata(after: after, limit: 64) },
                write: { worker, found in try await worker.addMetadata(found) })
        }
        if let faceDetector, !Task.isCancelled, scan.snapshot().complete, !scan.snapshot().interrupted {
            // Images indexed without faces get them now, inside the run (another indexer of a
            // shared index doing the same at once only repeats work: each write checks that the
            // image still has no faces).
            report.facesAdded = try await fill(
                Backfill.faces(
                    detector: faceDetector, thorough: thoroughFaceDetector, recognizer: faceRecognizer, decoder: classifier.decoder, jobs: jobs,
                    names: pass.importedNames), run,
                roots: options.roots,
                page: { worker, after in try await worker.imagesWithoutFaces(after: after, limit: 64) },
                write: { worker, found in try await worker.addFaces(found) })
        }
        if let thoroughFaceDetector, !Task.isCancelled, scan.snapshot().complete, !scan.snapshot().interrupted {
            // Images whose faces the fast detector alone looked for get the thorough look now.
            report.facesLookedAtThoroughly = try await fill(
                Backfill.thorough(
                    detector: thoroughFaceDetector, recognizer: faceRecognizer, decoder: classifier.decoder, jobs: jobs, names: pass.importedNames), run,
                roots: options.roots,
                page: { worker, after in try await worker.imagesNotLookedAtThoroughly(after: after, limit: 64) },
                write: { worker, found in try await worker.addFaces(found) })
        }
        if let faceRecognizer, !Task.isCancelled, scan.snapshot().complete, !scan.snapshot().interrupted {
            // Faces stored before the index recognised people get their descriptors now.
            report.facesDescribed = try await fill(
                Backfill.descriptors(recognizer: faceRecognizer, decoder: classifier.decoder, jobs: jobs), run, roots: options.roots,
                page: { worker, after in
                    // A recognizer that did not load describes nothing: stop reading files.
                    faceRecognizer.failure != nil ? [] : try await worker.imagesWithUndescribedFaces(after: after, limit: 64)
                },
                write: { worker, found in try await worker.addDescriptors(found) })
        }
        report.recognitionFailure = faceRecognizer?.failure
        let interrupted = Task.isCancelled || !scan.snapshot().complete || scan.snapshot().interrupted
        if interrupted {
            // Cancelling commits what the workers finished, so the summary counts it.
            run.cancel()
            report.summary = run.summary
        } else {
            report.summary = try await run.finish()
        }
        report.interrupted = interrupted
        report.skippedNonImages = scan.snapshot().skipped
        report.importedFaceNames = pass.importedNames.withLock { $0 }
        report.elapsed = clock.now - start
        return report
    }
}

extension LibraryIndexer {
    /// Runs `backfill` with a worker of `run` over the images `page` gives; a failure cancels the
    /// run. Returns how many images `write` changed.
    private func fill<Item: StoredContent, Found: Sendable>(
        _ backfill: Backfill<Item, Found>, _ run: any IndexWriterRun, roots: [LibraryRoot],
        page: @escaping @Sendable (any IndexWriterWorker, String?) async throws -> [Item],
        write: @escaping @Sendable (any IndexWriterWorker, [Found]) async throws -> Int
    ) async throws -> Int {
        let worker = run.makeWorker()
        do {
            let added = try await backfill.run(
                page: { try await page(worker, $0) }, localPath: { roots.localPath(forLibrary: $0) },
                write: { try await write(worker, $0) })
            await worker.close()
            return added
        } catch {
            await worker.close()
            run.cancel()
            throw error
        }
    }
}

/// One index pass: what the walk and the workers share.
private struct Pass: Sendable {
    let classifier: ImageClassifier
    let faceDetector: FaceDetector?
    let thoroughFaceDetector: FaceDetector?
    let faceRecognizer: OnDemandRecognizer?
    let metadataReader: PhotoMetadataReader?
    let vocabulary: IndexVocabulary
    let options: LibraryIndexer.Options
    let claimSize: Int
    /// Face names read from the classified photos' XMP regions.
    let importedNames = Locked<[ImportedFaceName]>([])

    typealias Failure = LibraryIndexer.Failure

    /// Walks the roots and queues what needs reading; paths the walk could not use are written
    /// as failures at once.
    func walk(
        _ run: any IndexWriterRun, _ scan: ScanState, problems reported: @Sendable (Int, [Failure], Int, Int) -> Void
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
                    _ = try await worker.write(known, completing: [])
                    reported(known.count, known.compactMap { entry in
                        guard case .failed(let failure) = entry else { return nil }
                        return Failure(path: failure.path, stage: failure.stage, reason: failure.reason)
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
    func work(
        _ run: any IndexWriterRun, _ scan: ScanState,
        finished: @Sendable (Int, [Failure], Int, Int) -> Void
    ) async throws {
        let worker = run.makeWorker()
        do {
            while !Task.isCancelled {
                // Read before the claim: files the walk queues after the claim looked wake the wait below.
                let generation = scan.generation
                let claims = try await worker.claim(limit: claimSize)
                if claims.isEmpty {
                    let snapshot = scan.snapshot()
                    if !snapshot.complete {
                        if snapshot.error != nil { break }
                        await scan.waitForUpdate(after: generation, timeout: options.pollInterval)
                        continue
                    }
                    let (left, soonest) = try await worker.remaining()
                    if left == 0 { break }
                    // Others hold the rest: wait for them to finish (this process's workers say
                    // so at once; other indexers are polled), or for a lease to run out.
                    let wait = min(1.0, max(0.05, soonest ?? 0.05))
                    await scan.waitForUpdate(after: generation, timeout: .milliseconds(Int(wait * 1000)))
                    continue
                }
                // Every claimed file is read and hashed first, so one look at the index tells
                // which of them it already holds (touched, moved, copied); the rest are classified.
                let read = readAll(claims, run)
                let hashed = read.compactMap { claim, file in file.hash.map { (claim: claim, contentHash: $0) } }
                var resolutions: [String: Resolution] = [:]
                for (item, resolution) in zip(hashed, try await worker.resolve(hashed)) { resolutions[item.claim.libraryPath] = resolution }
                var entries: [IndexEntry] = []
                var processed: [ClaimedFile] = []
                for (claim, first) in read {
                    let classifies = resolutions[claim.libraryPath] == .classify
                    // Bytes let go after hashing are read again only for a file that is classified.
                    let file = if case .hashed(let hash) = first, classifies { reread(claim, hash: hash, run) } else { first }
                    switch file {
                    case .failed(let entry): entries.append(entry)
                    case .bytes(let bytes, let hash) where classifies: entries.append(classify(bytes, hash: hash, claim.facts))
                    case .bytes, .hashed: break
                    }
                    processed.append(claim)
                }
                let inserted = try await worker.write(entries, completing: processed)
                try await worker.release(claims.filter { !processed.contains($0) })
                var failures: [Failure] = []
                var new = 0, updated = 0
                for (entry, isNew) in zip(entries, inserted) {
                    switch entry {
                    case .classified: if isNew { new += 1 } else { updated += 1 }
                    case .failed(let failure): failures.append(Failure(path: failure.path, stage: failure.stage, reason: failure.reason))
                    }
                }
                finished(processed.count, failures, new, updated)
                // Wakes a worker waiting for these files to be finished (the run's last ones).
                scan.update { $0.finished += processed.count }
            }
            if Task.isCancelled { scan.update { $0.interrupted = true } }
        } catch {
            await worker.close()
            throw error
        }
        await worker.close()
    }

    /// A claimed file after reading: its bytes and content hash, its hash alone (bytes let go to keep
    /// within ``LibraryIndexer/Options/heldBytes``), or the failure to write for it.
    private enum ReadFile {
        case bytes([UInt8], hash: String)
        case hashed(hash: String)
        case failed(IndexEntry)

        var hash: String? {
            switch self {
            case .bytes(_, let hash), .hashed(let hash): hash
            case .failed: nil
            }
        }
    }

    /// Reads a claim's files in order, keeping their bytes while they fit in `heldBytes` (the first
    /// always does) and only the hashes of the rest.
    private func readAll(_ claims: [ClaimedFile], _ run: any IndexWriterRun) -> [(claim: ClaimedFile, file: ReadFile)] {
        var read: [(claim: ClaimedFile, file: ReadFile)] = []
        var held = 0
        for claim in claims {
            if Task.isCancelled { break }
            var file = self.read(claim, run)
            if case .bytes(let bytes, let hash) = file {
                if held > 0, held + bytes.count > options.heldBytes {
                    file = .hashed(hash: hash)
                } else {
                    held += bytes.count
                }
            }
            read.append((claim, file))
        }
        return read
    }

    /// The bytes of a file whose bytes were let go after hashing, read again; a failure when the
    /// file no longer has the content it was hashed with.
    private func reread(_ claim: ClaimedFile, hash: String, _ run: any IndexWriterRun) -> ReadFile {
        let file = read(claim, run)
        if let again = file.hash, again != hash {
            let error = ClassificationError(stage: .read, reason: "the file changed while it was being indexed; it will be indexed again on the next run")
            return .failed(vocabulary.entry(for: error, file: claim.facts, contentHash: nil))
        }
        return file
    }

    /// Reads and hashes a claimed file, or says why it cannot be indexed.
    private func read(_ claim: ClaimedFile, _ run: any IndexWriterRun) -> ReadFile {
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
            let error = ClassificationError(stage: .read, reason: "the file changed size while it was being read (\(facts.size) -> \(bytes.count) bytes); it will be indexed again on the next run")
            return .failed(vocabulary.entry(for: error, file: facts, contentHash: nil))
        }
        return .bytes(bytes, hash: ContentHash.hex(of: bytes))
    }

    /// The classification (with faces, when they are looked for) or failure of a file's bytes.
    private func classify(_ bytes: [UInt8], hash: String, _ facts: FileFacts) -> IndexEntry {
        do throws(ClassificationError) {
            let (result, fastFaces) = try classifier.classify(data: bytes, findingFacesWith: faceDetector)
            var faces = fastFaces
            // The thorough look adds what the fast one missed; one that fails leaves the image to the next thorough run.
            let more = faces == nil ? nil : thoroughFaceDetector.flatMap { try? $0.detect(data: bytes) }
            if let found = faces, let more { faces = found.adding(more) }
            // The recognizer loads with the first face found, not before.
            let descriptors = faces.flatMap { found in
                found.faces.isEmpty ? nil : faceRecognizer?.recognizer?.descriptors(for: found, decoding: bytes, with: classifier.decoder)
            }
            let read = metadataReader?.read(result.metadata, path: facts.path)
            if let found = faces, let regions = read?.faceRegions, regions.contains(where: { $0.name != nil }) {
                // Names another photo tool gave these faces (XMP regions): imported after the run.
                let stored = IndexedFace.storageOrder(IndexedFace.faces(of: found, descriptors: nil))
                let names = SidecarFaceNames.match(regions, faces: stored, width: found.width, height: found.height, contentHash: hash)
                if !names.isEmpty { importedNames.withLock { $0.append(contentsOf: names) } }
            }
            return vocabulary.entry(
                for: result, faces: faces, descriptors: descriptors, facesThorough: more != nil, metadata: read?.stored, file: facts, contentHash: hash)
        } catch {
            return vocabulary.entry(for: error, file: facts, contentHash: hash)
        }
    }
}
