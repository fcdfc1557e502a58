import Foundation

/// Finds the default model directory without configuration.
///
/// Order: `CLASSIFY_MODEL_DIR`; an installed layout beside the running executable
/// (`<bin>/../share/classify/Models/<name>` or `<bin>/Models/<name>`); then the `Models/` folder of
/// this package's checkout, which is also where SwiftPM keeps it when another package depends on
/// classify. The first directory that holds a `model.json` wins.
///
/// ```swift
/// let directory = try ModelLocator.defaultModelDirectory()
/// ```
public enum ModelLocator {
    /// Name of the model shipped with the package.
    public static let defaultModelName = "efficientnet-lite0"
    /// Environment variable that overrides the search.
    public static let environmentVariable = "CLASSIFY_MODEL_DIR"

    /// The directories tried, in order.
    public static func candidateDirectories(modelName: String = defaultModelName) -> [URL] {
        var candidates: [URL] = []
        if let override = ProcessInfo.processInfo.environment[environmentVariable], !override.isEmpty {
            candidates.append(URL(fileURLWithPath: override, isDirectory: true))
        }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
        if let executablePath = Bundle.main.executablePath ?? (executable.path.isEmpty ? nil : executable.path) {
            let bin = URL(fileURLWithPath: executablePath).resolvingSymlinksInPath().deletingLastPathComponent()
            candidates.append(bin.appending(path: "../share/classify/Models/\(modelName)").standardized)
            candidates.append(bin.appending(path: "Models/\(modelName)"))
        }
        // #filePath is Sources/Classify/Model/ModelLocator.swift inside the package checkout.
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appending(path: "Models/\(modelName)"))
        return candidates
    }

    /// Where a model that ships beside the classifier (the face detectors, the face recognizer)
    /// may be: beside the classifier `CLASSIFY_MODEL_DIR` names first, then the usual places
    /// (``candidateDirectories(modelName:)`` without that override, which names the classifier).
    ///
    /// Usage: `let places = ModelLocator.siblingCandidateDirectories(modelName: "face-recognition")`
    public static func siblingCandidateDirectories(modelName: String) -> [URL] {
        let located = candidateDirectories(modelName: modelName)
        guard let classifier = ProcessInfo.processInfo.environment[environmentVariable], !classifier.isEmpty else { return located }
        return [URL(fileURLWithPath: classifier, isDirectory: true).deletingLastPathComponent().appending(path: modelName)]
            + located.dropFirst()
    }

    /// The first candidate directory holding a `model.json`.
    public static func defaultModelDirectory(modelName: String = defaultModelName) throws(ModelLoadingError) -> URL {
        let candidates = candidateDirectories(modelName: modelName)
        if let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0.appending(path: "model.json").path) }) {
            return found
        }
        throw .notFound(searched: candidates.map(\.path))
    }
}
