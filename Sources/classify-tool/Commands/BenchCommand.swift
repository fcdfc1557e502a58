import ArgumentParser
import Classify
import ClassifyIndexing
import Foundation

/// `classify-tool bench`: batch-1 model latency (and, with --layers, a per-op profile).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure model latency, or each stage of indexing a folder.",
        discussion: """
            Without --folder: runs the network on a fixed 224x224 input and prints
            median and p90 latency (and load time). With --folder: times read,
            decode, preprocess, infer and store per image on one core, then the
            whole indexing pipeline on the same files, and prints images/s and
            peak memory. Build with `swift build -c release` first; debug builds
            are many times slower.

            Examples:
              classify-tool bench --threads 1 --iterations 50 --json
              classify-tool bench --folder ~/Pictures --limit 200
            """)

    @Option(help: "Threads for one inference.") var threads = 1
    @Option(help: "Timed iterations.") var iterations = 50
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Also time each op and print the profile.") var layers = false
    @Option(help: ArgumentHelp("Time each stage of indexing the images in this folder.", valueName: "dir")) var folder: String?
    @Option(help: "With --folder: use at most this many images.") var limit = 200
    @Option(help: "With --folder: images classified at once in the pipeline run (default: cores).") var jobs: Int?
    @OptionGroup var modelOptions: ModelOptions

    func run() async throws {
        if let folder {
            try await benchFolder(folder)
            return
        }
        let directory = try modelOptions.modelDirectory()
        let loadMilliseconds = try LatencyBenchmark.measureLoad(directory: directory)
        let model = try ImageClassifierModel(contentsOf: directory)
        var report = LatencyBenchmark.run(model: model, threads: threads, iterations: iterations, profileLayers: layers)
        report.loadMilliseconds = loadMilliseconds
        if json {
            var object: [String: Any] = [
                "threads": report.threads, "iterations": report.iterations,
                "median_ms": report.medianMilliseconds, "p90_ms": report.p90Milliseconds,
                "min_ms": report.minimumMilliseconds, "mean_ms": report.meanMilliseconds, "load_ms": loadMilliseconds,
            ]
            if let layers = report.layers {
                object["layers"] = layers.map { ["name": $0.name, "kind": $0.kind, "output": $0.outputShape, "median_ms": $0.medianMilliseconds] }
            }
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print(String(format: "model latency, %d thread(s), %d iterations: median %.2f ms, p90 %.2f ms, min %.2f ms; load + first inference %.1f ms",
                     report.threads, report.iterations, report.medianMilliseconds, report.p90Milliseconds, report.minimumMilliseconds, loadMilliseconds))
        for layer in report.layers ?? [] {
            print(String(format: "%-24@ %-28@ %-12@ %7.3f ms", layer.name as NSString, layer.kind as NSString, layer.outputShape as NSString, layer.medianMilliseconds))
        }
    }

    private func benchFolder(_ folder: String) async throws {
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        let report = try await StageBenchmark.run(folder: folder, limit: limit, jobs: jobs, classifier: classifier)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            Terminal.out(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        Terminal.out("\(report.images) images (\(report.failed) failed), one at a time on one core, per image:")
        for stage in report.stages {
            let name = stage.name.padding(toLength: 11, withPad: " ", startingAt: 0)
            Terminal.out("  \(name)" + String(format: "median %7.2f ms  mean %7.2f ms", stage.medianMilliseconds, stage.meanMilliseconds))
        }
        if report.decodeByFormat.count > 1 || report.decodeByFormat.first?.format != "jpeg" {
            for format in report.decodeByFormat {
                let name = "\(format.format) (\(format.images))".padding(toLength: 14, withPad: " ", startingAt: 0)
                Terminal.out("    decode \(name)" + String(format: "median %7.2f ms  mean %7.2f ms", format.medianMilliseconds, format.meanMilliseconds))
            }
        }
        Terminal.out(String(format: "  all stages %7.2f ms (%.1f images/s on one core)", report.serialMillisecondsPerImage, 1000 / max(report.serialMillisecondsPerImage, 0.001)))
        Terminal.out(String(format: "pipeline with %d jobs: %.1f images/s; peak RSS %.0f MiB", report.jobs, report.pipelineImagesPerSecond, report.peakResidentMiB))
    }
}
