import ArgumentParser
import Classify
import Foundation

/// `--model DIR` for the benchmarks that run the networks.
///
/// Usage: `@OptionGroup var modelOptions: BenchModelOptions` then `let model = try modelOptions.loadModel()`
struct BenchModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Model directory (default: $CLASSIFY_MODEL_DIR, else the installed model).", valueName: "dir"))
    var model: String?

    /// The classifier's model from `--model`, else where `classify-tool` finds it.
    func loadModel() throws -> ImageClassifierModel {
        let directory = try model.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelLocator.defaultModelDirectory()
        return try ImageClassifierModel.shared(directory: directory)
    }
}
