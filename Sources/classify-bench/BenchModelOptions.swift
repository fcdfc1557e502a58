import ArgumentParser
import Classify
import Foundation

/// `--model DIR` for the benchmarks that run the networks.
///
/// Usage: `@OptionGroup var modelOptions: BenchModelOptions` then `let model = try modelOptions.loadModel()`
struct BenchModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Model directory (default: $CLASSIFY_MODEL_DIR, else the installed model).", valueName: "dir"))
    var model: String?

    @Option(help: ArgumentHelp(
        "Arithmetic of the network: int8 or fp32 (default: what classify-tool runs here, int8 on a CPU with VNNI when the model has quantization.json, else fp32).",
        valueName: "precision"))
    var precision: InferencePrecision?

    /// The classifier's model from `--model`, else where `classify-tool` finds it, in `--precision`,
    /// else the precision `classify-tool` would run.
    func loadModel() throws -> ImageClassifierModel {
        let directory = try model.map { URL(fileURLWithPath: $0, isDirectory: true) } ?? ModelLocator.defaultModelDirectory()
        return try ImageClassifierModel.shared(directory: directory, precision: precision ?? .preferred(forModelAt: directory))
    }
}

extension InferencePrecision: ExpressibleByArgument {}
