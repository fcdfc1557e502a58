import ArgumentParser
import ClassifyBenchmarks
import Foundation

/// `classify-bench people`: people grouping on synthetic descriptors, or recognition per face.
struct PeopleBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Measure people grouping on synthetic faces, or face recognition per face.",
        discussion: """
            Groups --faces synthetic 128-d descriptors from scratch, adds --add more,
            and prints wall and CPU time and the peak memory. With --recognition,
            times the landmarks, the face chip and the descriptor of one face instead
            (run from the package's folder: it reads Models/face-recognition and a
            test fixture).

            Examples:
              classify-bench people --faces 100000 --add 1000
              classify-bench people --recognition --repeat 50
            """)

    @Option(help: "Faces grouped from scratch.") var faces = 100_000
    @Option(help: "Faces added afterwards.") var add = 1_000
    @Option(help: "Threads for the distance scans (0: one per core).") var threads = 0
    @Flag(help: "Time landmarks, chip and descriptor per face instead.") var recognition = false
    @Option(help: "With --recognition: faces timed.") var `repeat` = 50

    func validate() throws {
        guard faces >= 1, add >= 0, threads >= 0, `repeat` >= 1 else {
            throw ValidationError("--faces and --repeat take 1 or more, --add and --threads 0 or more")
        }
    }

    func run() throws {
        let lines = recognition
            ? try PeopleBenchmark.recognition(repeats: `repeat`, root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            : try PeopleBenchmark.grouping(faces: faces, added: add, threads: threads)
        for line in lines { BenchOutput.figures(line) }
    }
}
