import ArgumentParser
import Classify

/// `classify-bench`: the developers' benchmarks, beside the product and not in it.
///
/// Each subcommand builds or reads what it measures and prints figures; none is needed to use
/// classify. Build with `swift build -c release` first: debug builds are many times slower.
/// The batch-1 latency of the model stays in `classify-tool bench`, which any user may run to
/// see what their machine does.
///
/// Usage: `swift run -c release classify-bench index --images 100000`
@main
struct ClassifyBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify-bench",
        abstract: "Benchmarks of classify's index, similarity search, writers, faces, indexing stages, places and people.",
        discussion: """
            Progress goes to stderr, figures to stdout. Build with
            `swift build -c release` first; debug builds are many times slower.
            The model's batch-1 latency is `classify-tool bench`.

            Examples:
              classify-bench index --images 100000 --db /tmp/library.sqlite
              classify-bench similar --images 100000
              classify-bench writers --postgres "$(Scripts/dev-postgres start)"
              classify-bench faces ~/Pictures --limit 100
              classify-bench stages ~/Pictures --limit 200
              classify-bench places
              classify-bench people --faces 100000
            """,
        version: ClassifyVersion.current,
        subcommands: [IndexBenchCommand.self, SimilarBenchCommand.self, WritersBenchCommand.self, FacesBenchCommand.self, FaceRecallBenchCommand.self, FaceNetworkBenchCommand.self, StagesBenchCommand.self, PlacesBenchCommand.self, PeopleBenchCommand.self]
    )

    /// Runs the command line with the memory allocator set as `classify-tool` sets it, so that
    /// the figures are the tool's (without it each 12-MP file's bytes were page-faulted in again:
    /// 5 ms of "read" per photo in `stages` on a virtual machine, against 0.3 ms).
    ///
    /// Usage: called by the `@main` entry point.
    static func main() async {
        AllocatorTuning.keepFreedMemory()
        await main(nil)
    }
}
