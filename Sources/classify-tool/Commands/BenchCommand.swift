import ArgumentParser
import Classify
import ClassifyBenchmarks
import Foundation
import TagIndex

/// `classify-tool bench`: batch-1 model latency (and, with --layers, a per-op profile).
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the model's latency on this machine.",
        discussion: """
            Runs the network on a fixed 224x224 input and prints median and p90
            latency (and load time). Build with `swift build -c release` first;
            debug builds are many times slower. The developers' benchmarks (the
            index, similarity, writers, faces, indexing stages) are classify-bench.

            --kernels forces a kernel path (avx512, avx2 or portable; default: the
            best this CPU has, or the CLASSIFY_KERNELS environment variable); a path
            the CPU lacks is an error. --clock thread counts the calling thread's CPU
            time instead of elapsed time (steadier on a busy machine; one thread only).

            Examples:
              classify-tool bench --threads 1 --iterations 50 --json
              classify-tool bench --kernels avx2 --layers --clock thread
            """)

    @Option(help: "Threads for one inference.") var threads = 1
    @Option(help: "Timed iterations.") var iterations = 50
    @Flag(help: "Print one JSON object.") var json = false
    @Flag(help: "Also time each op and print the profile.") var layers = false
    @Option(help: ArgumentHelp("Kernel path: avx512, avx2 or portable (default: the best this CPU has).", valueName: "path"))
    var kernels: String?
    @Option(help: ArgumentHelp("What to time: wall, or thread (the calling thread's CPU time).", valueName: "clock"))
    var clock = "wall"
    @OptionGroup var modelOptions: ModelOptions

    func validate() throws {
        if let kernels, KernelPath(rawValue: kernels) == nil {
            throw ValidationError("--kernels must be avx512, avx2 or portable, not '\(kernels)'")
        }
        if LatencyBenchmark.Clock(rawValue: clock) == nil {
            throw ValidationError("--clock must be wall or thread, not '\(clock)'")
        }
    }

    func run() async throws {
        if let kernels, let path = KernelPath(rawValue: kernels) {
            guard path <= KernelPath.best else {
                throw ValidationError("--kernels \(kernels): this CPU lacks \(path.requirement) (best here: \(KernelPath.best.rawValue))")
            }
            KernelPath.select(path)
        }
        let directory = try modelOptions.modelDirectory()
        let timing = LatencyBenchmark.Clock(rawValue: clock) ?? .wall
        let precision = modelOptions.resolvedPrecision(for: directory)
        let loadMilliseconds = try LatencyBenchmark.measureLoad(directory: directory, precision: precision, clock: timing)
        let model = try ImageClassifierModel(contentsOf: directory, precision: precision)
        var report = LatencyBenchmark.run(model: model, threads: threads, iterations: iterations, profileLayers: layers,
                                           clock: timing)
        report.loadMilliseconds = loadMilliseconds
        if json {
            let output = LatencyOutput(
                threads: report.threads, iterations: report.iterations, median_ms: report.medianMilliseconds, p90_ms: report.p90Milliseconds,
                min_ms: report.minimumMilliseconds, mean_ms: report.meanMilliseconds, load_ms: loadMilliseconds,
                kernels: KernelPath.current.rawValue, clock: clock, precision: precision.rawValue, int8_kernels: KernelPath.currentInt8Variant,
                layers: report.layers?.map {
                    .init(name: $0.name, kind: $0.kind, output: $0.outputShape, median_ms: $0.medianMilliseconds, min_ms: $0.minimumMilliseconds)
                })
            print(String(decoding: try JSONOutput.encode(output), as: UTF8.self))
            return
        }
        let kernelsUsed = precision == .int8 ? "\(KernelPath.current.rawValue) (int8: \(KernelPath.currentInt8Variant))" : KernelPath.current.rawValue
        print(String(format: "model latency, %@, %@ kernels, %d thread(s), %d iterations (%@ clock): median %.2f ms, p90 %.2f ms, min %.2f ms; load + first inference %.1f ms",
                     precision.rawValue as NSString, kernelsUsed as NSString, report.threads, report.iterations, clock as NSString, report.medianMilliseconds, report.p90Milliseconds, report.minimumMilliseconds, loadMilliseconds))
        for layer in report.layers ?? [] {
            print(String(format: "%-24@ %-28@ %-12@ %7.3f ms (min %.3f)", layer.name as NSString, layer.kind as NSString,
                         layer.outputShape as NSString, layer.medianMilliseconds, layer.minimumMilliseconds))
        }
    }
}

/// `bench --json`: the model's latency on this machine (keys as `compare.sh` reads them).
struct LatencyOutput: Codable, Sendable {
    var threads: Int
    var iterations: Int
    var median_ms: Double
    var p90_ms: Double
    var min_ms: Double
    var mean_ms: Double
    var load_ms: Double
    var kernels: String
    var clock: String
    var precision: String
    var int8_kernels: String
    var layers: [Layer]?

    /// One layer of `--layers`.
    struct Layer: Codable, Sendable {
        var name: String
        var kind: String
        var output: String
        var median_ms: Double
        var min_ms: Double
    }
}
