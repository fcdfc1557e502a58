import ArgumentParser
import Classify
import Foundation

/// `classify-tool bench`: batch-1 model latency (and, with --layers, a per-op profile).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure model latency on this machine.",
        discussion: """
            Runs the network on a fixed 224x224 input and prints median and p90
            latency. Build with `swift build -c release` first; debug builds are many
            times slower.

            Example:
              classify-tool bench --threads 1 --iterations 50 --json
            """)

    @Option(help: "Threads for one inference.") var threads = 1
    @Option(help: "Timed iterations.") var iterations = 50
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Also time each op and print the profile.") var layers = false
    @OptionGroup var modelOptions: ModelOptions

    func run() throws {
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
}
