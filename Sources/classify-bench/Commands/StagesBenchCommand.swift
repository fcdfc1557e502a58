import ArgumentParser
import Classify
import ClassifyBenchmarks
import Foundation

/// `classify-bench stages DIR`: each stage of indexing a folder, then the whole pipeline.
struct StagesBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stages",
        abstract: "Measure each stage of indexing the photos of a folder.",
        discussion: """
            Times read, decode, preprocess, infer and store per image on one core
            (decode also per format), then the whole indexing pipeline on the same
            files, and prints images/s and peak memory.

            Examples:
              classify-bench stages ~/Pictures --limit 200
              classify-bench stages ~/Pictures --jobs 2 --json
            """)

    @Argument(help: "A folder of photos.") var folder: String
    @Option(help: "Use at most this many images.") var limit = 200
    @Option(help: "Images classified at once in the pipeline run (default: cores).") var jobs: Int?
    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var modelOptions: BenchModelOptions

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit takes 1 or more") }
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
    }

    func run() async throws {
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        let report = try await StageBenchmark.run(folder: folder, limit: limit, jobs: jobs, classifier: classifier)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            BenchOutput.figures(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        BenchOutput.figures("\(report.images) images (\(report.failed) failed), one at a time on one core, per image:")
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
