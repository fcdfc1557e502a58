import Classify
import Foundation
import TagIndex

/// Keeps a `SQLiteIndex` in sync with folders: walks them, asks the index which files are new or
/// changed, reads each candidate once (hash and decode share the bytes), lets the index recognise
/// moved, copied and touched files by their content hash, classifies the rest several at a time,
/// and writes results through one writer in batched transactions.
///
/// Memory is bounded by the images in flight (`jobs`), not by the folder: the walk streams and is
/// planned in chunks. Cancelling the surrounding task stops taking new files; what is in flight is
/// still written, the run ends without removing anything, and the next run resumes, skipping
/// every file already written. A file that cannot be read or decoded is written as a failure
/// (stage and reason) and the run goes on; a database that refuses a write (disk full, read-only,
/// damaged: ``TagIndexError/storage(path:reason:)``) ends the run at once, keeping every batch
/// committed before.
///
/// ```swift
/// let indexer = FolderIndexer(index: index, classifier: try ImageClassifier())
/// let report = try await indexer.run(FolderIndexer.Options(roots: ["/home/me/Pictures"])) { progress in
///     print(progress.done, progress.imagesPerSecond)
/// }
/// print(report.summary)
/// ```
public struct FolderIndexer: Sendable {
    /// What to index and how.
    public struct Options: Sendable {
        public var roots: [String]
        /// Images classified at once (default: number of cores).
        public var jobs: Int?
        public var includeHidden = false
        /// `fnmatch` patterns matched against names and full paths.
        public var excludes: [String] = []
        /// A batch is committed when it holds this many entries...
        public var batchSize = 64
        /// ...or when this much time has passed since the last commit.
        public var batchInterval: Duration = .seconds(1)
        /// Walked files are planned against the index this many at a time.
        public var planChunkSize = 256
        /// Called (from the walk) with each file passed over as not an image: no image extension
        /// and no image signature. ``Report/skippedNonImages`` counts them either way.
        /// Usage: `options.skippedFile = { path in print("not an image:", path) }`
        public var skippedFile: (@Sendable (String) -> Void)?

        public init(roots: [String], jobs: Int? = nil, includeHidden: Bool = false, excludes: [String] = []) {
            self.roots = roots
            self.jobs = jobs
            self.includeHidden = includeHidden
            self.excludes = excludes
        }
    }

    /// Where a run stands, for progress displays.
    public struct Progress: Sendable {
        /// Files walked and planned so far.
        public var scanned = 0
        /// Files found so far that need reading (new or changed).
        public var candidates = 0
        /// Candidates finished (classified, kept by content hash, or failed).
        public var done = 0
        public var failed = 0
        /// True once the walk is over, so `candidates` is the final total.
        public var scanComplete = false
        public var elapsed: Duration = .zero
        /// Candidates finished per second so far.
        public var imagesPerSecond: Double {
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            return seconds > 0 ? Double(done) / seconds : 0
        }
        /// Seconds left at the current rate, once the total is known.
        public var estimatedSecondsLeft: Double? {
            guard scanComplete, imagesPerSecond > 0 else { return nil }
            return Double(candidates - done) / imagesPerSecond
        }
    }

    /// A file that failed, as reported.
    public struct Failure: Sendable, Hashable {
        public var path: String
        public var stage: String
        public var reason: String
    }

    /// What a run did.
    public struct Report: Sendable {
        public var summary: RunSummary
        /// Files classified that were not in the index before.
        public var new = 0
        /// Files classified again because they (or the model) changed.
        public var updated = 0
        /// The first failures (up to `failureSampleLimit`); `summary.failed` counts them all.
        public var failures: [Failure] = []
        /// Files in the folders passed over as not images (see ``Options/skippedFile``).
        /// Usage: `print("\(report.skippedNonImages) files skipped")`
        public var skippedNonImages = 0
        /// Images the index held without faces (indexed before faces were on, or with
        /// `--no-faces`) whose faces this run found and stored, without classifying them again.
        /// Usage: `print("faces added to \(report.facesAdded) photos")`
        public var facesAdded = 0
        /// True when the run was cancelled: nothing was removed, and the next run resumes.
        public var interrupted = false
        public var elapsed: Duration = .zero
    }

    /// How many failures `Report.failures` keeps.
    public static let failureSampleLimit = 10

    public let index: SQLiteIndex
    public let classifier: ImageClassifier
    public let vocabulary: IndexVocabulary
    /// Finds and stores the faces of every classified image, and of the images the index holds
    /// without faces; nil skips faces (`index --no-faces`).
    public let faceDetector: FaceDetector?

    /// Usage: `FolderIndexer(index: index, classifier: classifier, faceDetector: FaceDetector(model: try .shared()))`
    public init(index: SQLiteIndex, classifier: ImageClassifier, faceDetector: FaceDetector? = nil) {
        self.index = index
        self.classifier = classifier
        self.faceDetector = faceDetector
        vocabulary = IndexVocabulary(model: classifier.model, faces: faceDetector != nil)
    }

    /// One walked file that needs reading, or a path the walk could not use.
    enum Candidate: Sendable {
        case file(FileFacts, known: Bool)
        case problem(path: String, reason: String)
    }

    /// What happened to one candidate.
    enum Outcome: Sendable {
        case write(IndexEntry, known: Bool)
        case kept(Resolution)
        case databaseError(any Error)
    }

    /// Runs one index pass. `progress` is called from the writer after every finished file.
    public func run(_ options: Options, progress: (Progress) -> Void = { _ in }) async throws -> Report {
        let clock = ContinuousClock()
        let start = clock.now
        // The writer lock first: a second run stops at once with "another index run is writing"
        // instead of waiting for the first run's transaction to write the taxonomy.
        let run = try index.beginRun(roots: options.roots, model: self.vocabulary.stamp)
        // Without a detector the faces stored by earlier runs stay, and so does the face label
        // (below person) in the taxonomy: the entries are the same either way.
        let vocabulary: IndexVocabulary
        do {
            var keepsFaceLabel = false
            if faceDetector == nil { keepsFaceLabel = try index.labelImageCounts()[IndexVocabulary.faceLabel, default: 0] > 0 }
            vocabulary = keepsFaceLabel ? IndexVocabulary(model: classifier.model, faces: true) : self.vocabulary
            try vocabulary.install(into: index)
        } catch {
            run.cancel()
            throw error
        }
        let walker = ImageFileWalker(paths: options.roots, includeHidden: options.includeHidden, excludes: options.excludes)
        let scan = ScanState()
        let candidates = PlannedCandidates(walker: walker, run: run, chunkSize: options.planChunkSize, state: scan, skipped: options.skippedFile)

        var report = Report(summary: RunSummary())
        var state = Progress()
        var batch: [IndexEntry] = []
        var lastCommit = clock.now
        let pipeline = ClassificationPipeline(classifier: classifier, jobs: options.jobs)
        let work = makeWork(run: run, vocabulary: vocabulary)

        func flush() throws {
            guard !batch.isEmpty else { return }
            try run.write(batch: batch)
            batch.removeAll(keepingCapacity: true)
            lastCommit = clock.now
        }

        do {
            // A database error (disk full, read-only, damaged file) ends the run at once: the
            // files in flight finish, nothing more is read, and what was committed stays.
            try await pipeline.run(candidates, ordered: false, work: work, consume: { candidate, outcome in
                switch outcome {
                case .write(let entry, let known):
                    batch.append(entry)
                    switch entry {
                    case .classified: if known { report.updated += 1 } else { report.new += 1 }
                    case .failed(let failure):
                        state.failed += 1
                        if report.failures.count < Self.failureSampleLimit {
                            report.failures.append(Failure(path: failure.path, stage: failure.stage, reason: failure.reason))
                        }
                    }
                case .kept:
                    break
                case .databaseError(let error):
                    throw error
                }
                state.done += 1
                if batch.count >= options.batchSize || clock.now - lastCommit >= options.batchInterval {
                    try flush()
                }
                let scanned = scan.snapshot()
                state.scanned = scanned.scanned
                state.candidates = scanned.candidates
                state.scanComplete = scanned.complete
                state.elapsed = clock.now - start
                progress(state)
            })
            try flush()
            if let faceDetector, !Task.isCancelled, scan.snapshot().complete, scan.snapshot().error == nil {
                // Images indexed without faces get them now, inside the run (the writer lock held).
                let roots = options.roots.map { $0.hasSuffix("/") ? $0 : $0 + "/" }
                let tagIndex = self.index
                report.facesAdded = try await FaceBackfill(detector: faceDetector, decoder: classifier.decoder, jobs: pipeline.jobs).run(
                    page: { after in try tagIndex.imagesWithoutFaces(after: after, limit: 64) },
                    localPath: { path in roots.contains { path.hasPrefix($0) || path + "/" == $0 } ? path : nil },
                    write: { try tagIndex.addFaces($0) })
            }
        } catch {
            run.cancel()
            throw error
        }
        if let error = scan.snapshot().error {
            run.cancel()
            throw error
        }
        let interrupted = Task.isCancelled || !scan.snapshot().complete
        if interrupted {
            report.summary = run.summary
            run.cancel()
        } else {
            report.summary = try run.finish()
        }
        report.interrupted = interrupted
        report.skippedNonImages = scan.snapshot().skipped
        report.elapsed = clock.now - start
        return report
    }

    private func makeWork(run: IndexRun, vocabulary: IndexVocabulary) -> @Sendable (Candidate) -> Outcome {
        let classifier = classifier
        let faceDetector = faceDetector
        return { candidate in
            switch candidate {
            case .problem(let path, let reason):
                let facts = FileFacts(path: path, size: 0, modificationTime: Date(timeIntervalSince1970: 0))
                return .write(vocabulary.entry(for: ClassificationError(stage: .read, reason: reason), file: facts, contentHash: nil), known: false)
            case .file(let facts, let known):
                let bytes: [UInt8]
                do throws(ImageDecodingError) {
                    bytes = try classifier.decoder.readFile(at: URL(fileURLWithPath: facts.path))
                } catch {
                    return .write(vocabulary.entry(for: ClassificationError(error), file: facts, contentHash: nil), known: known)
                }
                if bytes.count != Int(facts.size) {
                    // Written to while we looked: the stored size stays the old one, so the next run
                    // sees the file as changed and classifies its final content.
                    let error = ClassificationError(stage: .read, reason: "the file changed size while it was being read (\(facts.size) -> \(bytes.count) bytes); it will be indexed again on the next run")
                    return .write(vocabulary.entry(for: error, file: facts, contentHash: nil), known: known)
                }
                let hash = ContentHash.hex(of: bytes)
                do {
                    let resolution = try run.resolve(facts, contentHash: hash)
                    guard resolution == .classify else { return .kept(resolution) }
                } catch {
                    return .databaseError(error)
                }
                do throws(ClassificationError) {
                    let (result, faces) = try classifier.classify(data: bytes, findingFacesWith: faceDetector)
                    return .write(vocabulary.entry(for: result, faces: faces, file: facts, contentHash: hash), known: known)
                } catch {
                    return .write(vocabulary.entry(for: error, file: facts, contentHash: hash), known: known)
                }
            }
        }
    }
}
