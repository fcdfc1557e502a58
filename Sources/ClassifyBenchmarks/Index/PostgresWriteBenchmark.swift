import Foundation
import PostgresNIO
import TagIndex
import TagIndexPostgres

/// Measures the write path of concurrent index runs on PostgreSQL without classifying: the
/// figures behind `classify-tool bench-writers`.
///
/// Each round starts an index run (``PostgresIndexRun``) over a folder of synthetic files that
/// do not exist on disk, queues them all (as a walk would), then lets `writers` workers, each
/// with its own connection, do what `classify-tool index` workers do after classifying:
/// claim a batch (`FOR UPDATE SKIP LOCKED`), look the batch's paths and contents up (``PostgresIndexWorker/resolve(_:)``)
/// and write the batch with its queue rows removed in one transaction
/// (``PostgresIndexWorker/write(_:completing:)``). The results are what the classifier
/// would give: 3-4 leaves of Zipf-like popularity over the synthetic taxonomy of
/// ``TagIndexBenchmark`` with their parents, a 1,280-value feature print and five dominant
/// colors. Rounds write to separate folders of the same database, so each finds the rows of
/// the rounds before it, as a growing library does.
///
/// Usage:
/// ```swift
/// let rounds = try await PostgresWriteBenchmark(target: descriptor).run { print($0) }
/// print(PostgresWriteBenchmark.report(rounds))
/// ```
package struct PostgresWriteBenchmark: Sendable {
    /// Sizes of the rounds.
    ///
    /// Usage: `var configuration = PostgresWriteBenchmark.Configuration(); configuration.writers = [1, 4]`
    package struct Configuration: Sendable, Hashable {
        /// Files each round writes.
        package var imagesPerRound = 20_000
        /// Writer counts, one round each, in this order.
        package var writers = [1, 2, 3, 4]
        /// Files a worker claims and writes per transaction (`index`'s default, 32).
        package var batchSize = 32
        /// Seed of the synthetic results.
        package var seed: UInt64 = 42

        /// Usage: `let configuration = PostgresWriteBenchmark.Configuration()`
        package init() {}
    }

    /// One round's figures.
    ///
    /// Usage: `print(round.writers, round.imagesPerSecond)`
    package struct Round: Sendable, Hashable {
        /// Concurrent workers.
        package var writers: Int
        /// Files written.
        package var images: Int
        /// Seconds to queue them (one worker, as the walk does).
        package var queueSeconds: Double
        /// Seconds from the first claim to the last commit.
        package var writeSeconds: Double
        /// Images in the database when the round began.
        package var imagesBefore: Int

        /// Files written per second.
        package var imagesPerSecond: Double { Double(images) / writeSeconds }
    }

    /// The database (its schema is created when missing).
    package let target: PostgresDescriptor
    /// Sizes.
    package let configuration: Configuration

    /// Usage: `let benchmark = PostgresWriteBenchmark(target: descriptor)`
    package init(target: PostgresDescriptor, configuration: Configuration = Configuration()) {
        self.target = target
        self.configuration = configuration
    }

    /// Runs the rounds in order and returns their figures.
    ///
    /// Usage: `let rounds = try await benchmark.run { print($0) }`
    package func run(progress: (@Sendable (String) -> Void)? = nil) async throws -> [Round] {
        let library = SyntheticLibrary(configuration: TagIndexBenchmark.Configuration())
        let labels = library.labels()
        let model = ModelStamp(name: "bench-writers", version: "1")
        let session = "\(UInt32.random(in: 0...UInt32.max))"
        let pool = Self.pool(seed: configuration.seed)
        var rounds: [Round] = []
        for (number, writers) in configuration.writers.enumerated() {
            let folder = "/bench-writers/\(session)/round-\(number + 1)-\(writers)"
            let run = try await PostgresIndexRun.begin(
                target, roots: [try LibraryRoot(name: nil, localPath: folder)], labels: labels, model: model)
            let imagesBefore = try await Self.imageCount(target)
            let files = (0..<configuration.imagesPerRound).map { index in
                FileFacts(path: "\(folder)/\(index / 1000)/IMG_\(index).jpg", size: Int64(2_000_000 + index), modificationTime: Date(timeIntervalSince1970: 1_600_000_000 + Double(index)))
            }
            let queueStart = ContinuousClock.now
            let planner = run.makeWorker()
            for chunk in stride(from: 0, to: files.count, by: 1000) {
                try await planner.plan(Array(files[chunk..<min(chunk + 1000, files.count)]))
            }
            await planner.close()
            let queueSeconds = Self.seconds(ContinuousClock.now - queueStart)

            let writeStart = ContinuousClock.now
            let written = try await withThrowingTaskGroup(of: Int.self) { group in
                for writer in 0..<writers {
                    let seed = configuration.seed &+ UInt64(number * 64 + writer)
                    group.addTask { try await Self.write(run, library: library, model: model, pool: pool, batch: configuration.batchSize, seed: seed) }
                }
                return try await group.reduce(0, +)
            }
            let writeSeconds = Self.seconds(ContinuousClock.now - writeStart)
            _ = try await run.finish()
            guard written == files.count else {
                throw TagIndexError.invalidInput("round \(number + 1) wrote \(written) of \(files.count) files")
            }
            let round = Round(writers: writers, images: written, queueSeconds: queueSeconds, writeSeconds: writeSeconds, imagesBefore: imagesBefore)
            progress?(String(format: "  %d writer(s): %d images in %.2f s = %.0f images/s (queued in %.2f s; %d images before)",
                             writers, written, writeSeconds, round.imagesPerSecond, queueSeconds, imagesBefore))
            rounds.append(round)
        }
        return rounds
    }

    /// One worker: claims, resolves and writes batches until the queue is empty; returns the files it wrote.
    private static func write(
        _ run: PostgresIndexRun, library: SyntheticLibrary, model: ModelStamp, pool: [(print: [Float], colors: [IndexedColor])], batch: Int, seed: UInt64
    ) async throws -> Int {
        let worker = run.makeWorker()
        var random = SyntheticLibrary.Random(state: seed)
        let weights = library.leafWeights()
        var written = 0
        do {
            while true {
                let claims = try await worker.claim(limit: batch)
                if claims.isEmpty { break }
                let hashed = claims.map { ($0, String(format: "%016llx%016llx", random.next(), random.next())) }
                var entries: [IndexEntry] = []
                for ((claim, hash), resolution) in zip(hashed, try await worker.resolve(hashed)) where resolution == .classify {
                    entries.append(.classified(result(claim.facts, hash: hash, library: library, weights: weights, model: model, pool: pool, &random)))
                }
                _ = try await worker.write(entries, completing: claims)
                written += claims.count
            }
        } catch {
            await worker.close()
            throw error
        }
        await worker.close()
        return written
    }

    /// What the classifier would say of one file: leaves drawn by popularity with decaying
    /// confidences, their parents' sums, a unit feature print and five colors from the pool.
    private static func result(
        _ facts: FileFacts, hash: String, library: SyntheticLibrary, weights: [Double], model: ModelStamp,
        pool: [(print: [Float], colors: [IndexedColor])], _ random: inout SyntheticLibrary.Random
    ) -> ImageClassification {
        var confidences: [String: Double] = [:]
        var confidence = random.uniform(0.3...0.95)
        for _ in 0..<4 {
            let draw = random.unit()
            let leaf = weights.firstIndex { $0 >= draw } ?? weights.count - 1
            let mid = library.parent(ofLeaf: leaf)
            confidences["thing_\(leaf)", default: 0] = max(confidences["thing_\(leaf)", default: 0], confidence)
            confidences["group_\(mid)", default: 0] = min(1, confidences["group_\(mid)", default: 0] + confidence)
            confidences["category_\(library.parent(ofMid: mid))", default: 0] = min(1, confidences["category_\(library.parent(ofMid: mid))", default: 0] + confidence)
            confidence *= random.uniform(0.1...0.6)
        }
        // Prints and colors come from a pool made before the clock starts: the benchmark times
        // writing results, not making them up.
        let (print, colors) = pool[Int(random.next() % UInt64(pool.count))]
        return ImageClassification(
            path: facts.path, size: facts.size, modificationTime: facts.modificationTime, contentHash: hash, width: 4032, height: 3024,
            model: model, observations: confidences.sorted { $0.key < $1.key }.map { LabelConfidence(identifier: $0.key, confidence: $0.value) },
            featurePrint: print, dominantColors: colors)
    }

    /// 256 unit feature prints and color sets, as the classifier gives them.
    private static func pool(seed: UInt64) -> [(print: [Float], colors: [IndexedColor])] {
        var random = SyntheticLibrary.Random(state: seed ^ 0x5EED)
        return (0..<256).map { _ in
            var print = (0..<FeaturePrint.dimension).map { _ in Float(random.uniform(-1...1)) }
            let norm = (print.reduce(0) { $0 + $1 * $1 }).squareRoot()
            print = print.map { $0 / norm }
            let colors = (0..<5).map { _ in
                IndexedColor(red: UInt8(random.next() & 0xFF), green: UInt8(random.next() & 0xFF), blue: UInt8(random.next() & 0xFF), weight: 0.2)
            }
            return (print, colors)
        }
    }

    private static func imageCount(_ target: PostgresDescriptor) async throws -> Int {
        let session = try await PostgresSession.connect(target)
        defer { Task { await session.close() } }
        return Int(try await session.all("SELECT COUNT(*) FROM images") { try $0.decode(Int64.self) }.first ?? 0)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }

    /// A table of the rounds, with each round's speed against one writer's.
    ///
    /// Usage: `print(PostgresWriteBenchmark.report(rounds))`
    package static func report(_ rounds: [Round]) -> String {
        let single = rounds.first { $0.writers == 1 }?.imagesPerSecond
        var lines = ["writers  images  seconds  images/s  vs 1 writer  images before"]
        for round in rounds {
            let scaling = single.map { String(format: "%10.2fx", round.imagesPerSecond / $0) } ?? String(repeating: " ", count: 10) + "-"
            lines.append(String(format: "%7d  %6d  %7.2f  %8.0f  ", round.writers, round.images, round.writeSeconds, round.imagesPerSecond)
                + scaling + String(format: "  %13d", round.imagesBefore))
        }
        return lines.joined(separator: "\n")
    }
}
