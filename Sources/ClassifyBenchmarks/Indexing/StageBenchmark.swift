import Classify
import Foundation
import ClassifyIndexing
import TagIndex
#if canImport(Glibc)
import Glibc
#endif

/// Times each stage of indexing a folder (read, decode, preprocess, infer, store) one image at a
/// time, then the whole concurrent pipeline (`LibraryIndexer`) on the same files, and reports
/// images per second and the process's peak resident memory.
///
/// ```swift
/// let report = try await StageBenchmark.run(folder: "/photos", limit: 200, classifier: try ImageClassifier())
/// print(report.pipelineImagesPerSecond)
/// ```
package enum StageBenchmark {
    /// Figures of one run; stage times are per image, in milliseconds.
    package struct Report: Sendable, Codable {
        package var images: Int
        package var failed: Int
        /// Median and mean milliseconds per image for each stage, in pipeline order.
        package var stages: [Stage]
        /// The decode stage split by the format the bytes were (``ImageFormat`` raw values, and
        /// "failed" for files that did not decode), each with its image count; formats differ
        /// by an order of magnitude (a 12-MP HEIC against a JPEG decoded at 1/8 size).
        package var decodeByFormat: [FormatStage]
        /// Sum of the stage means: one image on one core, start to end.
        package var serialMillisecondsPerImage: Double
        /// The real pipeline (`LibraryIndexer`, `jobs` at once, batched writes) on the same files.
        package var pipelineImagesPerSecond: Double
        package var jobs: Int
        /// Peak resident set size of this process so far, in MiB.
        package var peakResidentMiB: Double

        package struct Stage: Sendable, Codable {
            package var name: String
            package var medianMilliseconds: Double
            package var meanMilliseconds: Double
        }

        /// Decode time of the images of one format.
        package struct FormatStage: Sendable, Codable {
            package var format: String
            package var images: Int
            package var medianMilliseconds: Double
            package var meanMilliseconds: Double
        }
    }

    /// Runs on the first `limit` image files under `folder`.
    package static func run(folder: String, limit: Int, jobs: Int? = nil, classifier: ImageClassifier) async throws -> Report {
        let files = ImageFileWalker(paths: [folder]).lazy.compactMap { entry -> ImageFileWalker.File? in
            if case .file(let file) = entry, file.isRegularFile { return file }
            return nil
        }.prefix(limit)
        let scratch = FileManager.default.temporaryDirectory.appending(path: "classify-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        // Stage by stage, one image at a time.
        let serialIndex = try SQLiteIndex(url: scratch.appending(path: "serial.sqlite"))
        let vocabulary = IndexVocabulary(model: classifier.model)
        try vocabulary.install(into: serialIndex)
        var preprocessor = Preprocessor()
        var times: [String: [Double]] = [:]
        var decodeTimes: [String: [Double]] = [:]
        var failed = 0, images = 0
        let clock = ContinuousClock()
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) * 1e-15
        }
        ComputeThreads.configure(1)
        for file in files {
            images += 1
            var bytes: [UInt8] = []
            var image: DecodedImage?
            var output: InferenceOutput?
            times["read", default: []].append(milliseconds(clock.measure {
                bytes = (try? classifier.decoder.readFile(at: URL(fileURLWithPath: file.path))) ?? []
            }))
            let decodeTime = milliseconds(clock.measure {
                image = try? classifier.decoder.decode(bytes, minimumShortSide: classifier.model.description.input.resizeShortSide)
            })
            times["decode", default: []].append(decodeTime)
            decodeTimes[image?.format.rawValue ?? "failed", default: []].append(decodeTime)
            guard let image else {
                failed += 1
                continue
            }
            var preprocessTime = Duration.zero
            let inferStart = clock.now
            output = classifier.model.infer { input in
                preprocessTime = clock.measure { preprocessor.preprocess(image, into: input) }
            }
            let inferTime = clock.now - inferStart - preprocessTime
            times["preprocess", default: []].append(milliseconds(preprocessTime))
            times["infer", default: []].append(milliseconds(inferTime))
            let result = ClassificationResult(
                width: image.originalWidth, height: image.originalHeight, format: image.format,
                observations: classifier.model.labelSet.observations(probabilities: output!.probabilities),
                featurePrint: FeaturePrintObservation(features: output!.features))
            let facts = FileFacts(path: file.path, size: file.size, modificationTime: Date(timeIntervalSince1970: file.modificationTime))
            let entry = vocabulary.entry(for: result, file: facts, contentHash: ContentHash.hex(of: bytes))
            times["store", default: []].append(milliseconds(clock.measure { try? serialIndex.write(batch: [entry]) }))
        }

        // The whole pipeline on the same files (copied as links so the roots hold only them).
        let linked = scratch.appending(path: "files")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        for (number, file) in files.enumerated() {
            let name = String(format: "%06d-", number) + URL(fileURLWithPath: file.path).lastPathComponent
            try FileManager.default.createSymbolicLink(atPath: linked.appending(path: name).path, withDestinationPath: file.path)
        }
        let pipelineIndex = try SQLiteIndex(url: scratch.appending(path: "pipeline.sqlite"))
        let indexer = LibraryIndexer(index: pipelineIndex)
        try vocabulary.install(into: pipelineIndex)
        let options = try LibraryIndexer.Options(folders: [linked.path], jobs: jobs)
        let pipelineTime = try await clock.measure { _ = try await indexer.run(options, classifier: classifier) }

        func summary(_ values: [Double]) -> (median: Double, mean: Double) {
            let sorted = values.sorted()
            return sorted.isEmpty ? (0, 0) : (sorted[sorted.count / 2], sorted.reduce(0, +) / Double(sorted.count))
        }
        let order = ["read", "decode", "preprocess", "infer", "store"]
        let stages = order.map { name -> Report.Stage in
            let (median, mean) = summary(times[name] ?? [])
            return Report.Stage(name: name, medianMilliseconds: median, meanMilliseconds: mean)
        }
        let decodeByFormat = decodeTimes.sorted { $0.key < $1.key }.map { format, values -> Report.FormatStage in
            let (median, mean) = summary(values)
            return Report.FormatStage(format: format, images: values.count, medianMilliseconds: median, meanMilliseconds: mean)
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let seconds = milliseconds(pipelineTime) / 1e3
        return Report(
            images: images, failed: failed, stages: stages, decodeByFormat: decodeByFormat,
            serialMillisecondsPerImage: stages.map(\.meanMilliseconds).reduce(0, +),
            pipelineImagesPerSecond: seconds > 0 ? Double(images) / seconds : 0,
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, peakResidentMiB: Double(usage.ru_maxrss) / 1024)
    }
}
