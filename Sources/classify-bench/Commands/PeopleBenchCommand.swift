import ArgumentParser
import ClassifyBenchmarks
import Foundation

/// `classify-bench people`: people grouping on synthetic descriptors, or recognition per face.
struct PeopleBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "Measure people grouping on synthetic faces, or face recognition per face.",
        discussion: """
            Groups --faces synthetic 128-d descriptors from scratch, adds --add more,
            and prints wall and CPU time and the peak memory. With --index FOLDER,
            does it through a SQLite index there (writes the faces, refreshes people,
            adds the faces, refreshes again, names a person). With --recognition,
            times the landmarks, the face chip and the descriptor of one face instead
            (run from the package's folder: it reads Models/face-recognition and a
            test fixture).

            Examples:
              classify-bench people --faces 100000 --add 1000
              classify-bench people --faces 100000 --add 1000 --index /tmp
              classify-bench people --add 1000 --index /tmp --existing
              classify-bench people --recognition --repeat 50
            """)

    @Option(help: "Faces grouped from scratch.") var faces = 100_000
    @Option(help: "Faces added afterwards.") var add = 1_000
    @Option(help: "Threads for the distance scans (0: one per core).") var threads = 0
    @Flag(help: "Time landmarks, chip and descriptor per face instead.") var recognition = false
    @Option(help: ArgumentHelp("Group through a SQLite index made in this folder instead (as index and people do).", valueName: "folder"))
    var index: String?
    @Flag(help: "With --index: group the index an earlier --index run left there, in this process, and add --add faces.")
    var existing = false
    @Option(help: "With --recognition: faces timed.") var `repeat` = 50

    func validate() throws {
        guard faces >= 1, add >= 0, threads >= 0, `repeat` >= 1 else {
            throw ValidationError("--faces and --repeat take 1 or more, --add and --threads 0 or more")
        }
    }

    func run() async throws {
        if let index {
            let folder = URL(fileURLWithPath: index)
            let lines = existing
                ? try await IndexedPeopleBenchmark.existing(added: add, in: folder)
                : try await IndexedPeopleBenchmark.run(faces: faces, added: add, in: folder)
            for line in lines { BenchOutput.figures(line) }
            return
        }
        let lines = recognition
            ? try PeopleBenchmark.recognition(repeats: `repeat`, root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath))
            : try PeopleBenchmark.grouping(faces: faces, added: add, threads: threads)
        for line in lines { BenchOutput.figures(line) }
    }
}
