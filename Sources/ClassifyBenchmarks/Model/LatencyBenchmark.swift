import Classify
import Foundation

/// Measures batch-1 network latency on a fixed synthetic input, and where the time goes per op.
///
/// ```swift
/// let report = LatencyBenchmark.run(model: try .shared(), threads: 1, iterations: 50)
/// print(report.medianMilliseconds)
/// ```
package enum LatencyBenchmark {
    /// Latency figures of one run, in milliseconds.
    package struct Report: Sendable, Codable {
        package var threads: Int
        package var iterations: Int
        package var medianMilliseconds: Double
        package var p90Milliseconds: Double
        package var minimumMilliseconds: Double
        package var meanMilliseconds: Double
        /// Time from opening the model directory to the end of the first inference.
        package var loadMilliseconds: Double?
        /// Median time per op, in execution order (only with `profileLayers`).
        package var layers: [Layer]?

        /// One op's share.
        package struct Layer: Sendable, Codable {
            package var name: String
            package var kind: String
            package var outputShape: String
            package var medianMilliseconds: Double
            /// The fastest run: on a busy machine, the least disturbed.
            package var minimumMilliseconds: Double
        }
    }

    /// What the timings count.
    package enum Clock: String, Sendable, CaseIterable {
        /// Elapsed (wall-clock) time.
        case wall
        /// CPU time of the calling thread only: steadier on a busy machine, but with more than one
        /// thread it leaves out the workers' share.
        case thread
    }

    /// Runs `warmup` untimed inferences, then `iterations` timed ones.
    package static func run(model: ImageClassifierModel, threads: Int, iterations: Int, warmup: Int = 5, profileLayers: Bool = false,
                           clock: Clock = .wall) -> Report {
        ComputeThreads.configure(threads)
        let profiler = NetworkProfiler(model: model, input: randomInput(count: model.inputSize.width * model.inputSize.height * 3))
        return run(profiler, threads: threads, iterations: iterations, warmup: warmup, profileLayers: profileLayers, clock: clock)
    }

    /// The same for a BlazeFace detector's network at its 192x192 input, or `height` x `width`
    /// (nil for another kind of detector, or a size it cannot take). Usage: `LatencyBenchmark.run(faceDetector: try .shared(.blazeFace), threads: 1, iterations: 200)`
    package static func run(faceDetector model: FaceDetectorModel, height: Int? = nil, width: Int? = nil, threads: Int, iterations: Int, warmup: Int = 5,
                           profileLayers: Bool = false, clock: Clock = .wall) -> Report? {
        ComputeThreads.configure(threads)
        guard let shape = NetworkProfiler(faceDetector: model, input: [], height: height, width: width)?.inputShape,
              let profiler = NetworkProfiler(faceDetector: model, input: randomInput(count: shape.height * shape.width * shape.channels), height: height, width: width)
        else { return nil }
        return run(profiler, threads: threads, iterations: iterations, warmup: warmup, profileLayers: profileLayers, clock: clock)
    }

    /// The same for dlib's face recognition network at its 150x150 input.
    /// Usage: `LatencyBenchmark.run(faceRecognizer: try FaceRecognizer.shared().network, threads: 1, iterations: 100)`
    package static func run(faceRecognizer model: FaceDescriptorModel, threads: Int, iterations: Int, warmup: Int = 5, profileLayers: Bool = false,
                           clock: Clock = .wall) -> Report {
        ComputeThreads.configure(threads)
        let side = FaceDescriptorModel.chipSize
        let profiler = NetworkProfiler(faceRecognizer: model, input: randomInput(count: side * side * 3))
        return run(profiler, threads: threads, iterations: iterations, warmup: warmup, profileLayers: profileLayers, clock: clock)
    }

    /// LCG values in [-1, 1): the same input on every run and machine.
    static func randomInput(count: Int) -> [Float] {
        var random: UInt32 = 12345
        return (0..<count).map { _ in
            random = random &* 1664525 &+ 1013904223
            return Float((random >> 8) & 0xFFFFFF) / 8388608.0 - 1.0
        }
    }

    private static func run(_ profiler: NetworkProfiler, threads: Int, iterations: Int, warmup: Int, profileLayers: Bool, clock: Clock) -> Report {
        func now() -> UInt64 { clock == .wall ? DispatchTime.now().uptimeNanoseconds : threadCPUNanoseconds() }
        for _ in 0..<warmup { profiler.run() }

        var totals: [Double] = []
        var perLayer = [[Double]](repeating: [], count: profiler.operationCount)
        NetworkProfiler.withDenormalsFlushed {
            for _ in 0..<max(iterations, 1) {
                if profileLayers {
                    var sum = 0.0
                    for index in 0..<profiler.operationCount {
                        let start = now()
                        profiler.runOperation(at: index)
                        let elapsed = Double(now() - start) / 1e6
                        perLayer[index].append(elapsed)
                        sum += elapsed
                    }
                    totals.append(sum)
                } else {
                    let start = now()
                    profiler.run()
                    totals.append(Double(now() - start) / 1e6)
                }
            }
        }
        let layers = profileLayers ? (0..<profiler.operationCount).map { index in
            let operation = profiler.describeOperation(at: index)
            return Report.Layer(name: operation.name, kind: operation.kind,
                                outputShape: operation.outputShape, medianMilliseconds: median(perLayer[index]),
                                minimumMilliseconds: perLayer[index].min() ?? 0)
        } : nil
        return Report(
            threads: threads, iterations: totals.count, medianMilliseconds: median(totals),
            p90Milliseconds: percentile(totals, 0.9), minimumMilliseconds: totals.min() ?? 0,
            meanMilliseconds: totals.reduce(0, +) / Double(totals.count), loadMilliseconds: nil, layers: layers)
    }

    /// Time to load the model in `directory` and run one inference, in milliseconds (with
    /// `.thread`, the calling thread's CPU time; the load runs on it).
    package static func measureLoad(directory: URL, precision: InferencePrecision = .fp32, clock: Clock = .wall) throws -> Double {
        func now() -> UInt64 { clock == .wall ? DispatchTime.now().uptimeNanoseconds : threadCPUNanoseconds() }
        let start = now()
        let model = try ImageClassifierModel(contentsOf: directory, precision: precision)
        _ = model.infer { $0.update(repeating: 0) }
        return Double(now() - start) / 1e6
    }

    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down)), upper = Int(position.rounded(.up))
        return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - Double(lower))
    }
}
