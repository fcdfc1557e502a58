import ArgumentParser
import Classify
import ClassifyBenchmarks
import ClassifyIndexing
import Foundation

/// `classify-bench stages DIR`: each stage of indexing a folder, then the whole pipeline.
struct StagesBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stages",
        abstract: "Measure each stage of indexing the photos of a folder.",
        discussion: """
            Times each stage of `index` per image on one core, in its order: read,
            hash, decode (also per format), preprocess, infer, labels (and the
            feature print), colors, faces, describe (the descriptors of the faces
            found; its mean is over every image), metadata and store. Then runs the
            whole indexing pipeline with the same parts on the same files and prints
            images/s and peak memory. Faces and metadata are on, as in `index`;
            --no-faces and --no-metadata leave them out.

            Examples:
              classify-bench stages ~/Pictures --limit 200
              classify-bench stages ~/Pictures --jobs 2 --json
              classify-bench stages ~/Pictures --clock thread --no-faces
            """)

    @Argument(help: "A folder of photos.") var folder: String
    @Option(help: "Use at most this many images.") var limit = 200
    @Option(help: "Images classified at once in the pipeline run (default: cores).") var jobs: Int?
    @Flag(help: "Leave faces out, as `index --no-faces`.") var noFaces = false
    @Flag(help: "Leave dates, positions and places out, as `index --no-metadata`.") var noMetadata = false
    @Option(help: "What the stages are timed by: wall, or thread (the thread's CPU time, steadier on a busy machine).") var clock = "wall"
    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var modelOptions: BenchModelOptions

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit takes 1 or more") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
        if LatencyBenchmark.Clock(rawValue: clock) == nil { throw ValidationError("--clock must be wall or thread, not '\(clock)'") }
    }

    func run() async throws {
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        let faceDetector = noFaces ? nil : FaceDetector(model: try FaceDetectorModel.shared(.blazeFace))
        let report = try await StageBenchmark.run(
            folder: folder, limit: limit, jobs: jobs, classifier: classifier, faceDetector: faceDetector,
            faceRecognizer: noFaces ? nil : OnDemandRecognizer { try FaceRecognizer.shared() },
            metadata: noMetadata ? nil : .shared, clock: LatencyBenchmark.Clock(rawValue: clock) ?? .wall)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            BenchOutput.figures(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        let faces = noFaces ? "" : ", \(report.imagesWithFaces) with faces"
        BenchOutput.figures("\(report.images) images (\(report.failed) failed\(faces)), network in \(classifier.model.precision.rawValue), one at a time on one core, per image:")
        for stage in report.stages {
            let name = stage.name.padding(toLength: 11, withPad: " ", startingAt: 0)
            BenchOutput.figures("  \(name)" + String(format: "median %7.2f ms  mean %7.2f ms", stage.medianMilliseconds, stage.meanMilliseconds))
        }
        if report.decodeByFormat.count > 1 || report.decodeByFormat.first?.format != "jpeg" {
            for format in report.decodeByFormat {
                let name = "\(format.format) (\(format.images))".padding(toLength: 14, withPad: " ", startingAt: 0)
                BenchOutput.figures("    decode \(name)" + String(format: "median %7.2f ms  mean %7.2f ms", format.medianMilliseconds, format.meanMilliseconds))
            }
        }
        BenchOutput.figures(String(format: "  all stages %7.2f ms (%.1f images/s on one core)", report.serialMillisecondsPerImage, 1000 / max(report.serialMillisecondsPerImage, 0.001)))
        BenchOutput.figures(String(format: "pipeline with %d jobs: %.1f images/s; peak RSS %.0f MiB", report.jobs, report.pipelineImagesPerSecond, report.peakResidentMiB))
    }
}
