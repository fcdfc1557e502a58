import Classify
import Foundation
import ClassifyIndexing
import TagIndex
#if canImport(Glibc)
import Glibc
#endif

/// Times each stage of indexing a folder one image at a time, as `index` runs them (read, hash,
/// decode, preprocess, infer, labels and feature print, colors, faces and their descriptors when
/// a detector is given, metadata, store), then the whole concurrent pipeline (`LibraryIndexer`)
/// with the same parts on the same files, and reports images per second and the process's peak
/// resident memory.
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
        /// Images in which the detector found a face (0 without a detector).
        package var imagesWithFaces: Int
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
    /// `faceDetector` nil leaves faces out (as `index --no-faces`), `metadata` nil leaves metadata out.
    package static func run(
        folder: String, limit: Int, jobs: Int? = nil, classifier: ImageClassifier, faceDetector: FaceDetector? = nil,
        faceRecognizer: OnDemandRecognizer? = nil, metadata: PhotoMetadataReader? = nil, clock stageClock: LatencyBenchmark.Clock = .wall
    ) async throws -> Report {
        let files = ImageFileWalker(paths: [folder]).lazy.compactMap { entry -> ImageFileWalker.File? in
            if case .file(let file) = entry, file.isRegularFile { return file }
            return nil
        }.prefix(limit)
        let scratch = FileManager.default.temporaryDirectory.appending(path: "classify-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        // Stage by stage, one image at a time, in the order `index` runs them.
        let serialIndex = try SQLiteIndex(url: scratch.appending(path: "serial.sqlite"))
        let vocabulary = IndexVocabulary(model: classifier.model, faces: faceDetector != nil)
        try vocabulary.install(into: serialIndex)
        var preprocessor = Preprocessor()
        var times: [String: [Double]] = [:]
        var decodeTimes: [String: [Double]] = [:]
        var failed = 0, images = 0, withFaces = 0
        let clock = ContinuousClock()
        func milliseconds(_ duration: Duration) -> Double {
            Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) * 1e-15
        }
        // The loop never suspends, so each image's stages run on one thread and its CPU clock
        // counts them all (the network runs on this thread: one compute thread).
        func measure(_ work: () -> Void) -> Double {
            if stageClock == .wall { return milliseconds(clock.measure(work)) }
            let start = LatencyBenchmark.threadCPUNanoseconds()
            work()
            return Double(LatencyBenchmark.threadCPUNanoseconds() - start) / 1e6
        }
        func time<T>(_ stage: String, _ work: () -> T) -> T {
            var value: T?
            times[stage, default: []].append(measure { value = work() })
            return value!
        }
        ComputeThreads.configure(1)
        // Loaded now, so that "describe" times describing, not the network's one-off load.
        if faceDetector != nil { _ = faceRecognizer?.recognizer }
        for file in files {
            images += 1
            let bytes = time("read") { (try? classifier.decoder.readFile(at: URL(fileURLWithPath: file.path))) ?? [] }
            let hash = time("hash") { ContentHash.hex(of: bytes) }
            var image: DecodedImage?
            let decodeTime = measure {
                image = try? classifier.decoder.decode(bytes, minimumShortSide: classifier.model.description.input.resizeShortSide)
            }
            times["decode", default: []].append(decodeTime)
            decodeTimes[image?.format.rawValue ?? "failed", default: []].append(decodeTime)
            guard let image else {
                failed += 1
                continue
            }
            var preprocessTime = 0.0
            var output: InferenceOutput?
            let inferTime = measure {
                output = classifier.model.infer { input in
                    preprocessTime = measure { preprocessor.preprocess(image, into: input) }
                }
            }
            times["preprocess", default: []].append(preprocessTime)
            times["infer", default: []].append(inferTime - preprocessTime)
            guard let output else { continue }
            let (observations, featurePrint) = time("labels") {
                (classifier.model.labelSet.observations(probabilities: output.probabilities), FeaturePrintObservation(features: output.features))
            }
            let colors = time("colors") { DominantColors.extract(from: image) }
            let result = ClassificationResult(
                width: image.originalWidth, height: image.originalHeight, format: image.format,
                observations: observations, featurePrint: featurePrint, dominantColors: colors, metadata: image.metadata)
            var faces: FaceDetectionResult?
            var descriptors: [[Float]?]?
            if let faceDetector {
                // As `index`: the classifier's pixels when they are large enough for the detector, else its own decode.
                let shared = faceDetector.analysisShortSide <= classifier.model.description.input.resizeShortSide
                faces = time("faces") { try? shared ? faceDetector.detect(in: image) : faceDetector.detect(data: bytes) }
                // Descriptors only for the photos with faces: their mean is over every image.
                descriptors = time("describe") {
                    faces.flatMap { found in
                        found.faces.isEmpty ? nil : faceRecognizer?.recognizer?.descriptors(for: found, decoding: bytes, with: classifier.decoder)
                    }
                }
                if faces?.faces.isEmpty == false { withFaces += 1 }
            }
            let stored = time("metadata") { metadata?.indexed(result.metadata, path: file.path) }
            let facts = FileFacts(path: file.path, size: file.size, modificationTime: Date(timeIntervalSince1970: file.modificationTime))
            time("store") {
                let entry = vocabulary.entry(
                    for: result, faces: faces, descriptors: descriptors, facesThorough: false, metadata: stored, file: facts, contentHash: hash)
                try? serialIndex.write(batch: [entry])
            }
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
        let pipelineTime = try await clock.measure {
            _ = try await indexer.run(
                options, classifier: classifier, faceDetector: faceDetector, faceRecognizer: faceRecognizer, metadata: metadata)
        }

        func summary(_ values: [Double]) -> (median: Double, mean: Double) {
            let sorted = values.sorted()
            return sorted.isEmpty ? (0, 0) : (sorted[sorted.count / 2], sorted.reduce(0, +) / Double(sorted.count))
        }
        let order = ["read", "hash", "decode", "preprocess", "infer", "labels", "colors", "faces", "describe", "metadata", "store"]
            .filter { times[$0] != nil }
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
            images: images, failed: failed, imagesWithFaces: withFaces, stages: stages, decodeByFormat: decodeByFormat,
            serialMillisecondsPerImage: stages.map(\.meanMilliseconds).reduce(0, +),
            pipelineImagesPerSecond: seconds > 0 ? Double(images) / seconds : 0,
            jobs: jobs ?? ProcessInfo.processInfo.activeProcessorCount, peakResidentMiB: Double(usage.ru_maxrss) / 1024)
    }
}
