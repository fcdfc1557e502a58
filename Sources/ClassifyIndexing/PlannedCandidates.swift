import Classify
import Foundation
import ClassifySupport
import TagIndex

/// Counters of the walk, read by the writer for progress while the walk goes on.
final class ScanState: Sendable {
    struct Snapshot: Sendable {
        var scanned = 0
        var candidates = 0
        /// Files passed over as not images (no image extension, no image signature).
        var skipped = 0
        var complete = false
        var error: (any Error)?
    }

    private let state = Locked(Snapshot())

    func snapshot() -> Snapshot { state.withLock { $0 } }
    func update(_ body: (inout Snapshot) -> Void) { state.withLock { body(&$0) } }
}

/// The walk, planned against the index a chunk at a time: yields only files the index says need
/// reading (new, changed, or from another model), plus paths the walk could not use. Files that
/// are not images are counted in the scan state and handed to `skipped`.
struct PlannedCandidates: Sequence {
    let walker: ImageFileWalker
    let run: IndexRun
    let chunkSize: Int
    let state: ScanState
    let skipped: (@Sendable (String) -> Void)?

    func makeIterator() -> Iterator {
        var walker = walker
        walker.reportsSkipped = true
        return Iterator(walk: walker.makeIterator(), run: run, chunkSize: chunkSize, state: state, skipped: skipped)
    }

    struct Iterator: IteratorProtocol {
        var walk: ImageFileWalker.Iterator
        let run: IndexRun
        let chunkSize: Int
        let state: ScanState
        let skipped: (@Sendable (String) -> Void)?
        var ready: [FolderIndexer.Candidate] = []
        var readyIndex = 0
        var finished = false

        mutating func next() -> FolderIndexer.Candidate? {
            while readyIndex == ready.count {
                guard !finished else { return nil }
                refill()
            }
            defer { readyIndex += 1 }
            return ready[readyIndex]
        }

        private mutating func refill() {
            ready.removeAll(keepingCapacity: true)
            readyIndex = 0
            var files: [FileFacts] = []
            var problems: [FolderIndexer.Candidate] = []
            var skippedCount = 0
            while files.count < chunkSize, !Task.isCancelled, let entry = walk.next() {
                switch entry {
                case .file(let file):
                    files.append(FileFacts(path: file.path, size: file.size, modificationTime: Date(timeIntervalSince1970: file.modificationTime)))
                case .problem(let path, let reason):
                    problems.append(.problem(path: path, reason: reason))
                case .skipped(let path):
                    skippedCount += 1
                    skipped?(path)
                }
            }
            if files.count < chunkSize { finished = true }
            do {
                let plans = try run.plan(files)
                ready = plans.filter { $0.action == .needsClassification }.map { .file($0.facts, known: $0.isIndexed) } + problems
            } catch {
                finished = true
                state.update { $0.error = error }
                return
            }
            let found = ready.count
            let cancelled = Task.isCancelled
            state.update { snapshot in
                snapshot.skipped += skippedCount
                snapshot.scanned += files.count + problems.count
                snapshot.candidates += found
                if finished && !cancelled { snapshot.complete = true }
            }
        }
    }
}
