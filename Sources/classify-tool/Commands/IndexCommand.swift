import ArgumentParser
import Classify
import ClassifySupport
import ClassifyIndexing
import Dispatch
import Foundation
import TagIndex
import TagIndexPostgres
#if canImport(Glibc)
import Glibc
#endif

/// `classify-tool index FOLDER...`: classify folders into the index, incrementally.
///
/// Usage: `classify-tool index ~/Pictures --jobs 2`
struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Classify folders into the label index; later runs only do what changed.",
        discussion: """
            New and changed files are classified; files moved or renamed with the same
            content keep their labels; deleted files are removed from the index. A file
            that cannot be classified is stored as failed, with the reason, and the run
            goes on. On a terminal a status line shows files done/total, images per
            second, time left and failures; otherwise only the summary is printed.

            Faces are detected too (BlazeFace, Models/blazeface) and stored per image:
            search them with faces:N, faces:N+, faces:0 or the word face (person and
            people also match photos with faces). Photos indexed without faces (by an
            earlier version, or with --no-faces) get them on the next run without being
            classified again; the summary says how many ("faces added to N photos").
            Each face also gets a descriptor (dlib's face recognition network,
            Models/face-recognition); faces stored without one get it on the next run
            from their stored boxes. After the run, the described faces are grouped into
            people when they changed (`people` lists, names and corrects them; search
            with person:NAME).
            --faces thorough also runs MTCNN (Models/mtcnn) on each photo: it finds
            the smaller faces BlazeFace misses (3-10% of the photo's short side), at
            about 100 ms more per photo. Its faces that BlazeFace did not find are
            added; photos indexed before get the thorough look on that run, their
            stored faces keeping their numbers ("looked at N photos thoroughly for faces").
            --no-faces leaves faces out (the faces stored stay).

            Each photo's date taken, GPS position, camera and lens, and the nearest town,
            are stored too (search them with taken:, after:, camera:, place:, near:...);
            photos indexed before get them on the next run without being classified
            again. --no-metadata leaves them out (what is stored stays).

            Ctrl-C stops taking new files, writes what is finished, prints the summary
            so far and exits 130; the next run continues where it stopped. A second
            Ctrl-C quits at once (the index stays consistent).

            With --db postgres://... the index is shared: run any number of index
            processes, on this machine or others, on the same database and the same or
            overlapping folders. Each file is claimed before it is classified, so none is
            classified twice at once; files claimed by an indexer that was killed are
            taken over when its claims expire; a run ends when nothing under its folders
            is left. --root NAME=FOLDER names a library: its files are stored as
            NAME:/relative/path, so machines that mount the same share at different
            places share rows. A server restart during a run is waited out (the workers
            reconnect); a server that cannot be reached is an error within 10 s.

            Exit status: 0 done, 1 error, 2 done but some files failed, 130 interrupted.

            Examples:
              classify-tool index ~/Pictures
              classify-tool index ~/Pictures /media/card --exclude '*/.thumbnails/*'
              classify-tool index ~/Pictures --jobs 2 --db ~/photos.sqlite
              classify-tool index --root pics=/mnt/pics --db postgres://me@nas/pics
            """)

    @Argument(help: "Folders (or files) to index.") var folders: [String] = []
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("A named library folder of a PostgreSQL index (repeatable).", valueName: "name=folder"))
    var roots: [String] = []
    /// Hidden: the multi-indexer tests use short leases so claims of killed indexers expire quickly.
    @Option(help: ArgumentHelp("Seconds a claim on a file lasts without renewal (PostgreSQL).", visibility: .hidden))
    var leaseSeconds: Double = 60
    /// Hidden: files a worker claims and writes at once (default: 1 for SQLite, 32 for PostgreSQL).
    @Option(help: ArgumentHelp("Files a worker claims at once.", visibility: .hidden))
    var claimSize: Int?
    @Option(help: "Images classified at once (default: number of cores).") var jobs: Int?
    @Option(help: ArgumentHelp("Skip names or paths matching this glob (repeatable).", valueName: "glob")) var exclude: [String] = []
    @Flag(help: "Also index hidden files and folders.") var includeHidden = false
    @Option(help: ArgumentHelp("How faces are looked for: fast (BlazeFace) or thorough (BlazeFace and MTCNN).", valueName: "fast|thorough"))
    var faces: FaceLook = .fast
    @Flag(help: "Leave faces out (the faces stored stay).") var noFaces = false
    @Flag(
        inversion: .prefixedNo,
        help: "Store dates taken, positions, cameras and places, or not (default: store them).")
    var metadata = true
    /// Hidden: the crash-safety tests use small batches so every run commits several times.
    @Option(help: ArgumentHelp("Files written per transaction (at most; a batch also ends after a second).", visibility: .hidden))
    var batchSize = 64
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
        if batchSize < 1 { throw ValidationError("--batch-size takes 1 or more") }
        if folders.isEmpty && roots.isEmpty { throw ValidationError("give the folders to index") }
        if !(0.5...86400).contains(leaseSeconds) { throw ValidationError("--lease-seconds takes 0.5 to 86400") }
        if let claimSize, claimSize < 1 { throw ValidationError("--claim-size takes 1 or more") }
        if noFaces, faces != .fast { throw ValidationError("--no-faces and --faces \(faces.rawValue) contradict each other") }
    }

    /// How `index` looks for faces (`--faces`).
    enum FaceLook: String, ExpressibleByArgument, CaseIterable {
        /// BlazeFace on one view of the photo (the default).
        case fast
        /// BlazeFace, then MTCNN: faces MTCNN finds that BlazeFace did not are added.
        case thorough
    }

    func run() async throws {
        verbosity.apply()
        let libraryRoots: [LibraryRoot]
        do {
            libraryRoots = try folders.map { try LibraryRoot(name: nil, localPath: $0) } + roots.map { try LibraryRoot(parsing: $0) }
            try LibraryIndexer.check(libraryRoots, for: database.indexLocation)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        for (root, given) in zip(libraryRoots, folders + roots) where !RawPath.exists(root.localPath.isEmpty ? "/" : root.localPath) {
            Terminal.error("error: \(root.name == nil ? given : root.localPath) does not exist")
            throw ExitCode(ToolExit.failure)
        }
        let showsProgress = Terminal.stderrIsTerminal && !Terminal.quiet
        let display = ProgressDisplay(enabled: showsProgress)
        // Ctrl-C is taken from here on, before the model loads: the handler's registration is
        // asynchronous, and a SIGINT before it would be lost (SIGINT is ignored meanwhile). One
        // that comes before the run exists cancels the run as soon as it starts.
        let (interruption, interrupts) = takeInterrupts(display)
        defer { interrupts.stop() }

        // The classifier's network compiles, the face detectors and the places file load from
        // here on, on threads of their own, while the index opens and the run begins (the labels
        // go into the index as soon as they are read).
        let facesWanted = !noFaces, thorough = faces == .thorough, wantsMetadata = metadata
        let loading = try modelOptions.startLoadingModel()
        async let detectors = (try Self.faceDetector(if: facesWanted), try Self.faceDetector(if: facesWanted && thorough, kind: .mtcnn))
        async let reader = wantsMetadata ? PhotoMetadataReader.shared : nil
        let indexer: LibraryIndexer
        do {
            indexer = try LibraryIndexer(location: database.indexLocation, opener: .standard)
            // Also the first look at a server: one that cannot be reached fails here within 10 s.
            _ = try await indexer.installedModel()
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        if database.given == nil { Terminal.note("index: \(database.displayLocation)") }
        var options = LibraryIndexer.Options(roots: libraryRoots, jobs: jobs, includeHidden: includeHidden, excludes: exclude)
        options.settings.batchSize = batchSize
        options.claimSize = claimSize
        options.settings.lease = .milliseconds(Int64(leaseSeconds * 1000))
        if Terminal.verbose {
            options.skippedFile = { path in display.interject { Terminal.debug("skipped (not an image): \(path)") } }
        }
        let begun: LibraryIndexer.BegunRun
        do {
            let vocabulary = IndexVocabulary(labelSet: try loading.labelSet(), description: loading.description, faces: facesWanted)
            begun = try await indexer.begin(options, vocabulary: vocabulary)
        } catch let error as ModelLoadingError {
            throw error
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        let classifier: ImageClassifier
        let faceDetector: FaceDetector?, thoroughFaceDetector: FaceDetector?
        do {
            classifier = ImageClassifier(model: try loading.model())
            (faceDetector, thoroughFaceDetector) = try await detectors
        } catch {
            begun.cancel()
            throw error
        }
        let metadataReader = await reader
        // Loaded with the first face that needs describing (most runs find none).
        let faceRecognizer = facesWanted ? OnDemandRecognizer { try FaceRecognizer.shared() } : nil

        // For the status line's total and ETA only: count the image files beside the run.
        let folders = libraryRoots.map { $0.localPath.isEmpty ? "/" : $0.localPath }
        let counting = Task.detached(priority: .utility) { [includeHidden, exclude] in
            guard showsProgress else { return }
            var count = 0
            for _ in ImageFileWalker(paths: folders, includeHidden: includeHidden, excludes: exclude) {
                count += 1
                if count % 1024 == 0 && Task.isCancelled { return }
            }
            display.setFilesInFolders(count)
        }
        defer { counting.cancel() }
        try await finish(
            Task {
                try await indexer.run(
                    begun, classifier: classifier, faceDetector: faceDetector, thoroughFaceDetector: thoroughFaceDetector,
                    faceRecognizer: faceRecognizer, metadata: metadataReader
                ) {
                    display.update($0)
                }
            },
            interruption, display)
    }

    /// The shared face detector of `kind` when wanted; a detector that does not load ends the run.
    private static func faceDetector(if wanted: Bool, kind: FaceDetector.Kind = .blazeFace) throws -> FaceDetector? {
        guard wanted else { return nil }
        do { return FaceDetector(model: try FaceDetectorModel.shared(kind)) } catch {
            Terminal.error("error: the face detector does not load (\(error)); pass --no-faces to index without faces")
            throw ExitCode(ToolExit.failure)
        }
    }

    /// Ctrl-C for a run: the first cancels it (the files in flight are finished and written), the
    /// second quits at once. Stop the handler when the run is over.
    private func takeInterrupts(_ display: ProgressDisplay) -> (Locked<Interruption>, InterruptHandler) {
        let interruption = Locked(Interruption())
        let interrupts = InterruptHandler { count in
            if count == 1 {
                display.stop()
                Terminal.note("interrupted: finishing the files in flight (Ctrl-C again to quit at once; the index stays consistent)")
                interruption.withLock { state in
                    state.requested = true
                    state.run?.cancel()
                }
            } else {
                _exit(ToolExit.interrupted)
            }
        }
        return (interruption, interrupts)
    }

    /// Waits for the run (cancelled at once when Ctrl-C came first), prints its summary and ends
    /// with its exit status.
    private func finish(_ task: Task<LibraryIndexer.Report, any Error>, _ interruption: Locked<Interruption>, _ display: ProgressDisplay) async throws {
        interruption.withLock { state in
            state.run = task
            if state.requested { task.cancel() }
        }
        let report: LibraryIndexer.Report
        do {
            report = try await task.value
        } catch {
            display.stop()
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        display.stop()
        printSummary(report)
        // Names read from XMP are kept even when the run was interrupted (its files are not read again).
        await groupPeople(importing: report.importedFaceNames, regroup: !report.interrupted)
        if report.interrupted { throw ExitCode(ToolExit.interrupted) }
        if report.summary.failed > 0 { throw ExitCode(ToolExit.someFilesFailed) }
    }

    /// Groups the described faces into people when they or the corrections changed; a failure is
    /// a warning (the next run or `people` groups them again).
    private func groupPeople(importing names: [ImportedFaceName], regroup: Bool) async {
        let start = ContinuousClock.now
        do {
            // Closed (and released) before this returns, so SQLite folds its WAL into the file at exit.
            let index = try await database.openBackend()
            let refresh: PeopleRefresh?
            do {
                refresh = try await groupPeople(in: index, importing: names, regroup: regroup)
                await index.close()
            } catch {
                await index.close()
                throw error
            }
            guard let refresh, refresh.regrouped, refresh.faces > 0 || refresh.people > 0 else { return }
            let elapsed = ContinuousClock.now - start
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            Terminal.out(String(
                format: "people: %@ faces grouped into %@ (%@ named), %@ waiting for a person (%.1f s)",
                Self.grouped(refresh.faces), refresh.people == 1 ? "1 person" : "\(Self.grouped(refresh.people)) people",
                Self.grouped(refresh.named), Self.grouped(refresh.unassigned), seconds))
        } catch {
            Terminal.error("warning: people were not grouped (\(error)); `classify-tool people` groups them")
        }
    }

    private func groupPeople(in index: any IndexBackend, importing names: [ImportedFaceName], regroup: Bool) async throws -> PeopleRefresh? {
        let imported = try await index.importFaceNames(names)
        if imported > 0 { Terminal.out("names of \(Self.grouped(imported)) faces read from XMP face regions (digiKam, Lightroom)") }
        return regroup ? try await index.refreshPeople() : nil
    }

    /// "1 photo", "2 photos", "10,000 photos".
    private static func photos(_ count: Int) -> String { count == 1 ? "1 photo" : "\(grouped(count)) photos" }

    /// `n` with a comma every three digits (10,000).
    static func grouped(_ n: Int) -> String {
        var digits = String(n.magnitude), groups: [Substring] = []
        while digits.count > 3 { groups.insert(digits.suffix(3), at: 0); digits.removeLast(3) }
        return (n < 0 ? "-" : "") + ([Substring(digits)] + groups).joined(separator: ",")
    }

    private func printSummary(_ report: LibraryIndexer.Report) {
        let summary = report.summary
        let seconds = Double(report.elapsed.components.seconds) + Double(report.elapsed.components.attoseconds) * 1e-18
        let verb = report.interrupted ? "interrupted after" : "done in"
        Terminal.out(String(format: "%@ %.1f s: %d new, %d updated, %d moved, %d copied, %d touched, %d unchanged, %d removed, %d failed",
                            verb, seconds, report.new, report.updated, summary.moved, summary.copied, summary.touched,
                            summary.unchanged, summary.removed, summary.failed))
        if report.metadataAdded > 0 {
            Terminal.out("dates, places and cameras added to \(Self.photos(report.metadataAdded)) indexed without them")
        }
        if report.facesAdded > 0 { Terminal.out("faces added to \(Self.photos(report.facesAdded)) indexed without them") }
        if report.facesLookedAtThoroughly > 0 {
            Terminal.out("looked at \(Self.photos(report.facesLookedAtThoroughly)) thoroughly for faces (indexed before with --faces fast)")
        }
        if let failure = report.recognitionFailure {
            Terminal.error("warning: faces were stored without descriptors: the face recognition models do not load (\(failure)); the next run tries again")
        }
        if report.facesDescribed > 0 { Terminal.out("faces described for recognition in \(Self.photos(report.facesDescribed)) indexed before") }
        if report.skippedNonImages > 0 { Terminal.out(Terminal.skippedSummary(report.skippedNonImages)) }
        if !report.failures.isEmpty {
            let shown = report.failures.count < summary.failed ? "first \(report.failures.count) of \(summary.failed)" : "\(summary.failed)"
            Terminal.out("failed (\(shown)):")
            for failure in report.failures { Terminal.out("  \(failure.path): \(failure.stage): \(failure.reason)") }
            // The location as shown never carries a password.
            Terminal.out("list all: classify-tool search --failed\(database.given == nil ? "" : " --db \(database.displayLocation)")")
        }
        if report.interrupted { Terminal.out("run the same command again to continue") }
    }
}

/// Whether Ctrl-C was pressed, and the run to cancel when it is.
private struct Interruption {
    var requested = false
    var run: Task<LibraryIndexer.Report, any Error>?
}

/// Calls `handler` with the number of SIGINTs received so far; restores default handling on `stop`.
final class InterruptHandler {
    private let source: any DispatchSourceSignal

    init(handler: @escaping @Sendable (Int) -> Void) {
        signal(SIGINT, SIG_IGN)
        source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        let count = Counter()
        source.setEventHandler { handler(count.increment()) }
        source.resume()
    }

    func stop() {
        source.cancel()
        signal(SIGINT, SIG_DFL)
    }

    private final class Counter: @unchecked Sendable {
        private var value = 0
        private let lock = NSLock()
        func increment() -> Int { lock.lock(); defer { lock.unlock() }; value += 1; return value }
    }
}
