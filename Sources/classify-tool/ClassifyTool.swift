import ArgumentParser
import Classify

/// The `classify-tool` command: classify photos, keep a label index of folders, search it.
@main
struct ClassifyTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify-tool",
        abstract: "Classify photos on this machine and find them by what is in them.",
        discussion: """
            Examples:
              classify-tool classify photo.jpg
              classify-tool index ~/Pictures
              classify-tool search dog
            """,
        version: ClassifyVersion.current,
        subcommands: [ClassifyCommand.self, IndexCommand.self, SearchCommand.self, ShowCommand.self, StatsCommand.self, EvaluateCommand.self, CalibrateCommand.self, LabelsCommand.self, BenchCommand.self, SimilarCommand.self, DuplicatesCommand.self, SimilarBenchCommand.self]
    )
}
