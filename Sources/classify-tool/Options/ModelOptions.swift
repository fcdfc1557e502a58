import ArgumentParser
import Classify
import Foundation

/// `--model DIR`, shared by every command that runs the network.
///
/// Usage: `@OptionGroup var modelOptions: ModelOptions` then `let model = try modelOptions.loadModel()`
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Model directory (default: $CLASSIFY_MODEL_DIR, else the installed model).", valueName: "dir"))
    var model: String?

    @Option(help: ArgumentHelp(
        "Arithmetic of the network: int8 or fp32 (default: int8 on a CPU with VNNI when the model has quantization.json, else fp32; calibrate: fp32).",
        valueName: "precision"))
    var precision: InferencePrecision?

    /// `--precision`, else the precision this CPU runs best (``InferencePrecision/preferred(forModelAt:)``).
    func resolvedPrecision(for directory: URL) -> InferencePrecision { precision ?? .preferred(forModelAt: directory) }

    /// The model from `--model`, `$CLASSIFY_MODEL_DIR`, the installed layout or the checkout (named with `--verbose`).
    func loadModel() throws -> ImageClassifierModel {
        let (directory, precision) = try chosenModel()
        return try ImageClassifierModel.shared(directory: directory, precision: precision)
    }

    /// `loadModel`'s model, its labels ready before its network (for `index`, which installs them
    /// meanwhile); not shared with `loadModel`.
    func startLoadingModel() throws -> ImageClassifierModel.Loading {
        let (directory, precision) = try chosenModel()
        return try ImageClassifierModel.Loading(contentsOf: directory, precision: precision)
    }

    /// The model directory and precision both loaders use (named with `--verbose`).
    private func chosenModel() throws -> (directory: URL, precision: InferencePrecision) {
        let directory = try modelDirectory()
        Terminal.debug("model: \(directory.standardizedFileURL.path)")
        let precision = resolvedPrecision(for: directory)
        Terminal.debug("precision: \(precision.rawValue)")
        return (directory, precision)
    }

    /// The directory `loadModel` reads.
    func modelDirectory() throws -> URL {
        if let model { return URL(fileURLWithPath: model, isDirectory: true) }
        // An override that points nowhere is a mistake to report, not a reason to fall back quietly.
        if let override = ProcessInfo.processInfo.environment[ModelLocator.environmentVariable], !override.isEmpty,
           !FileManager.default.fileExists(atPath: URL(fileURLWithPath: override).appending(path: "model.json").path) {
            Terminal.error("error: \(ModelLocator.environmentVariable)=\(override) holds no model.json")
            throw ExitCode(ToolExit.failure)
        }
        return try ModelLocator.defaultModelDirectory()
    }
}

extension InferencePrecision: ExpressibleByArgument {}
