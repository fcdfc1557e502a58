import Foundation

/// Classifies many images at once with a bounded task group and hands every result to one
/// consumer, so a caller can print or store results from a single place (one index writer).
///
/// At most `jobs` images are decoded and classified at a time, so memory is bounded by the number
/// in flight, not by how many items there are; the input sequence is consumed lazily. Results come
/// in input order when `ordered`, else as they finish. Cancelling the surrounding task stops
/// taking new items; items already in flight finish and are delivered.
///
/// ```swift
/// let pipeline = ClassificationPipeline(classifier: try ImageClassifier(), jobs: 2)
/// await pipeline.run(urls) { url, result in print(url.path, (try? result.get())?.observations.first?.identifier ?? "failed") }
/// ```
public struct ClassificationPipeline: Sendable {
    public let classifier: ImageClassifier
    public let jobs: Int

    /// The most images a pipeline classifies at once; larger `jobs` values are clamped to it, so
    /// memory stays bounded whatever a caller asks for.
    ///
    /// ```swift
    /// let jobs = min(requested, ClassificationPipeline.maximumJobs)
    /// ```
    public static let maximumJobs = 256

    /// `jobs` defaults to the number of active cores and is clamped to 1...``maximumJobs``. With
    /// more than one job, each inference runs on one thread (see `ComputeThreads`), so the tasks
    /// and the kernels' threads do not oversubscribe the CPU.
    public init(classifier: ImageClassifier, jobs: Int? = nil) {
        self.classifier = classifier
        self.jobs = min(Self.maximumJobs, max(1, jobs ?? ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Classifies the file at each URL.
    public func run<Items: Sequence>(
        _ urls: Items, ordered: Bool = true,
        consume: (URL, Result<ClassificationResult, ClassificationError>) async throws -> Void
    ) async rethrows where Items.Element == URL {
        try await run(urls, ordered: ordered, work: { [classifier] url in
            Result { () throws(ClassificationError) in try classifier.classify(contentsOf: url) }
        }, consume: consume)
    }

    /// Runs `work` on each item with at most `jobs` in flight and gives every output to `consume`.
    public func run<Items: Sequence, Output: Sendable>(
        _ items: Items, ordered: Bool = true,
        work: @escaping @Sendable (Items.Element) -> Output,
        consume: (Items.Element, Output) async throws -> Void
    ) async rethrows where Items.Element: Sendable {
        if jobs > 1 { ComputeThreads.configure(1) }
        try await withThrowingTaskGroup(of: (Int, Items.Element, Output).self) { group in
            var iterator = items.makeIterator()
            var nextIndex = 0, nextToDeliver = 0, inFlight = 0
            var finished: [Int: (Items.Element, Output)] = [:]
            // In ordered mode a slow item holds back delivery; the window bounds how many finished
            // results may wait behind it.
            let window = ordered ? jobs * 4 : Int.max
            func refill() {
                while inFlight < jobs, nextIndex - nextToDeliver < window, !Task.isCancelled, let item = iterator.next() {
                    let index = nextIndex
                    nextIndex += 1
                    inFlight += 1
                    group.addTask { (index, item, work(item)) }
                }
            }
            refill()
            while let (index, item, output) = try await group.next() {
                inFlight -= 1
                if ordered {
                    finished[index] = (item, output)
                    while let ready = finished.removeValue(forKey: nextToDeliver) {
                        try await consume(ready.0, ready.1)
                        nextToDeliver += 1
                    }
                } else {
                    nextToDeliver += 1
                    try await consume(item, output)
                }
                refill()
            }
        }
    }
}
