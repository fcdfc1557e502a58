import ArgumentParser
import Classify
import ClassifyBenchmarks
import Foundation

/// `classify-bench face-network`: a face network alone (BlazeFace's, or dlib's recognition
/// ResNet), on a fixed input, whole and per op.
struct FaceNetworkBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "face-network",
        abstract: "Measure a face network alone (the detector's or the recognizer's), whole and per op.",
        discussion: """
            Runs the face detector's network (Models/blazeface) on a fixed
            192x192 input, or with --network recognizer the face recognition
            network (Models/face-recognition) on a fixed 150x150 chip, and
            prints its median, p90 and minimum latency and, with --layers, each
            op's. The letterbox, decoding and suppression around the detector
            are in `classify-bench faces --detector blazeFace`; landmarks and
            chips around the recognizer in `classify-bench people --recognition`.

            Example:
              classify-bench face-network --iterations 300 --layers --clock thread
              classify-bench face-network --kernels avx2
              classify-bench face-network --input 480x352 --layers --clock thread
              classify-bench face-network --network recognizer --layers --clock thread
            """)

    enum Network: String, ExpressibleByArgument, CaseIterable {
        case detector, recognizer
    }

    @Option(help: "The network: detector (BlazeFace) or recognizer (dlib's ResNet).") var network = Network.detector
    @Option(help: ArgumentHelp("Detector only: the input's size, WIDTHxHEIGHT in multiples of 32 (default: 192x192).", valueName: "size"))
    var input: String?
    @Option(help: "Compute threads for one inference.") var threads = 1
    @Option(help: "Timed iterations.") var iterations = 200
    @Flag(help: "Also time each op and print the profile.") var layers = false
    @Option(help: "Kernel path: avx512, avx2 or portable (default: the best this CPU has).") var kernels: String?
    @Option(help: "What to time: wall, or thread (the calling thread's CPU time).") var clock = "wall"

    func validate() throws {
        guard threads >= 1, iterations >= 1 else { throw ValidationError("--threads and --iterations must be at least 1") }
        if let kernels, KernelPath(rawValue: kernels) == nil { throw ValidationError("--kernels must be avx512, avx2 or portable, not '\(kernels)'") }
        if LatencyBenchmark.Clock(rawValue: clock) == nil { throw ValidationError("--clock must be wall or thread, not '\(clock)'") }
    }

    func run() throws {
        if let kernels, let path = KernelPath(rawValue: kernels) {
            guard path <= KernelPath.best else {
                throw ValidationError("--kernels \(kernels): this CPU lacks \(path.requirement) (best here: \(KernelPath.best.rawValue))")
            }
            KernelPath.select(path)
        }
        let clock = LatencyBenchmark.Clock(rawValue: clock) ?? .wall
        let name: String, report: LatencyBenchmark.Report
        switch network {
        case .detector:
            let model = try FaceDetectorModel.shared(.blazeFace)
            let size = try input.map { text -> (width: Int, height: Int) in
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 >= 192 && $0 % 32 == 0 }) else {
                    throw ValidationError("--input takes WIDTHxHEIGHT, each a multiple of 32 and at least 192, not '\(text)'")
                }
                return (parts[0], parts[1])
            }
            guard let measured = LatencyBenchmark.run(
                faceDetector: model, height: size?.height, width: size?.width, threads: threads, iterations: iterations, profileLayers: layers, clock: clock)
            else { throw ValidationError("\(model.directory.path) is not a BlazeFace model") }
            (name, report) = ("BlazeFace network" + (input.map { " at \($0)" } ?? ""), measured)
        case .recognizer:
            let model = try FaceRecognizer.shared().network
            (name, report) = ("Face recognition network", LatencyBenchmark.run(faceRecognizer: model, threads: threads, iterations: iterations, profileLayers: layers, clock: clock))
        }
        print(String(format: "%@, %@ kernels, %d thread(s), %d iterations (%@ clock): median %.3f ms, p90 %.3f ms, min %.3f ms",
                     name as NSString, KernelPath.current.rawValue as NSString, report.threads, report.iterations, clock.rawValue as NSString,
                     report.medianMilliseconds, report.p90Milliseconds, report.minimumMilliseconds))
        for layer in report.layers ?? [] {
            print(String(format: "%-32@ %-28@ %-12@ %7.3f ms (min %.3f)", layer.name as NSString, layer.kind as NSString,
                         layer.outputShape as NSString, layer.medianMilliseconds, layer.minimumMilliseconds))
        }
    }
}
