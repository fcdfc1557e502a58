/// Why a model directory could not be loaded.
///
/// Every case names the file (and, where it applies, the tensor or node) so a user can tell a
/// half-copied download from a mismatched model:
///
/// ```swift
/// do { _ = try ImageClassifierModel(contentsOf: directory) }
/// catch let error as ModelLoadingError { print(error) }   // "model.safetensors: tensor 'stem.weight' ..."
/// ```
public enum ModelLoadingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No model directory was found; `searched` lists every place that was tried, in order.
    case notFound(searched: [String])
    /// A file the model needs is missing or cannot be read.
    case unreadable(file: String, reason: String)
    /// A file is present but its structure is wrong (bad magic, truncated header, bad JSON...).
    case malformed(file: String, reason: String)
    /// The description is of a format version this library does not understand.
    case unsupportedFormat(file: String, found: Int, supported: Int)
    /// A tensor the graph needs is not in the weights file.
    case missingTensor(file: String, tensor: String)
    /// A tensor has a shape other than the graph expects.
    case shapeMismatch(file: String, tensor: String, expected: [Int], found: [Int])
    /// The graph itself is inconsistent (unknown op, unknown input, channel counts that do not chain).
    case invalidGraph(file: String, node: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let searched):
            return "no model directory found; looked in: \(searched.joined(separator: ", ")). "
                + "Pass a model directory or set CLASSIFY_MODEL_DIR."
        case .unreadable(let file, let reason):
            return "\(file): cannot be read (\(reason))"
        case .malformed(let file, let reason):
            return "\(file): malformed (\(reason))"
        case .unsupportedFormat(let file, let found, let supported):
            return "\(file): format version \(found) is not supported (this library reads version \(supported))"
        case .missingTensor(let file, let tensor):
            return "\(file): tensor '\(tensor)' is missing"
        case .shapeMismatch(let file, let tensor, let expected, let found):
            return "\(file): tensor '\(tensor)' has shape \(found), expected \(expected)"
        case .invalidGraph(let file, let node, let reason):
            return "\(file): node '\(node)': \(reason)"
        }
    }
}
