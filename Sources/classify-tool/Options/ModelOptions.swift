import ArgumentParser
import Classify
import Foundation

/// `--model DIR`, shared by every command that runs the network.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Model directory (default: the installed model, or $CLASSIFY_MODEL_DIR).", valueName: "dir"))
    var model: String?

    func loadModel() throws -> ImageClassifierModel {
        if let model { return try ImageClassifierModel(contentsOf: URL(fileURLWithPath: model, isDirectory: true)) }
        return try ImageClassifierModel.shared()
    }

    func modelDirectory() throws -> URL {
        if let model { return URL(fileURLWithPath: model, isDirectory: true) }
        return try ModelLocator.defaultModelDirectory()
    }
}
