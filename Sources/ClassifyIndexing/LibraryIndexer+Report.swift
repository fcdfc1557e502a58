import TagIndex

extension LibraryIndexer {
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
        /// Photos indexed before whose faces the fast detector alone had looked for, looked at
        /// by the thorough detector in this run (`index --faces thorough`), new faces or not.
        /// Usage: `print("looked at \(report.facesLookedAtThoroughly) photos thoroughly")`
        public var facesLookedAtThoroughly = 0
        /// Photos whose stored faces got their descriptors in this run (stored before the index
        /// recognised people). Usage: `print("faces described in \(report.facesDescribed) photos")`
        public var facesDescribed = 0
        /// Why faces could not be described in this run (the recognizer did not load); nil when
        /// they were, or none needed it. Usage: `if let failure = report.recognitionFailure { print(failure) }`
        public var recognitionFailure: String?
        /// Photos indexed before the index stored metadata that got their date taken, position and
        /// camera in this run.
        /// Usage: `print("dates and places added to \(report.metadataAdded) photos")`
        public var metadataAdded = 0
        /// Names other photo tools gave the faces of the photos this run classified (XMP MWG
        /// regions, matched to the stored faces); record them with `index.importFaceNames(_:)`.
        /// Usage: `try await index.importFaceNames(report.importedFaceNames)`
        public var importedFaceNames: [ImportedFaceName] = []
        /// True when the run was cancelled: nothing was removed, and the next run resumes.
        public var interrupted = false
        public var elapsed: Duration = .zero
    }

    /// How many failures `Report.failures` keeps.
    ///
    /// Usage: `report.failures.count <= LibraryIndexer.failureSampleLimit`
    public static let failureSampleLimit = 10
}
