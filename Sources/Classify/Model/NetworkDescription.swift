import Foundation

/// The contents of a `model.json` of format `classify-network`: one network as a graph of ops
/// with named outputs and no labels (the MTCNN face detector's P-Net, R-Net and O-Net). The
/// format is documented in `Models/FORMAT.md` ("Networks").
///
/// Usage:
/// ```swift
/// let pnet = try NetworkDescription(contentsOf: directory.appending(path: "pnet/model.json"))
/// print(pnet.name, pnet.outputs.keys.sorted())
/// ```
public struct NetworkDescription: Codable, Sendable {
    /// The newest `formatVersion` this library reads; it reads every older one too (version 2
    /// added explicit convolution padding, `ResizeBilinear` and `DepthToSpace`).
    /// Usage: `NetworkDescription.supportedFormatVersion`
    public static let supportedFormatVersion = 2

    /// Always `classify-network`. Usage: `description.format`
    public var format: String
    /// Layout version of the file. Usage: `description.formatVersion`
    public var formatVersion: Int
    /// Short name, e.g. `mtcnn-pnet`. Usage: `print(description.name)`
    public var name: String
    /// Version of the converted weights. Usage: `description.modelVersion`
    public var modelVersion: String
    /// File name of the weights, relative to the directory of `model.json`. Usage: `description.weights`
    public var weights: String
    /// The input tensor. Usage: `description.input.height`
    public var input: Input
    /// Output role (`probabilities`, `boxes`, `landmarks`) to graph value name.
    /// Usage: `let value = description.outputs["boxes"]`
    public var outputs: [String: String]
    /// The ops in execution order. Usage: `description.nodes.count`
    public var nodes: [ModelDescription.Node]

    /// What the network reads: an NHWC tensor normalized as `(pixel - mean) / std`.
    ///
    /// Usage: `let scale = 1 / description.input.std[0]`
    public struct Input: Codable, Sendable {
        /// Value name of the input. Usage: `input.name`
        public var name: String
        /// Always `NHWC`. Usage: `input.layout`
        public var layout: String
        /// Height in pixels (the smallest accepted when `variableSize`). Usage: `input.height`
        public var height: Int
        /// Width in pixels (the smallest accepted when `variableSize`). Usage: `input.width`
        public var width: Int
        /// Channels (3). Usage: `input.channels`
        public var channels: Int
        /// `RGB`. Usage: `input.channelOrder`
        public var channelOrder: String
        /// Per-channel mean subtracted from 8-bit pixels. Usage: `input.mean[0]`
        public var mean: [Float]
        /// Per-channel divisor after the mean. Usage: `input.std[0]`
        public var std: [Float]
        /// True for a fully convolutional network that runs on any size at least height x width.
        /// Usage: `if input.variableSize { ... }`
        public var variableSize: Bool
    }

    /// Reads and checks `model.json`.
    ///
    /// Usage: `let description = try NetworkDescription(contentsOf: url)`
    public init(contentsOf url: URL) throws(ModelLoadingError) {
        let fileName = url.deletingLastPathComponent().lastPathComponent + "/" + url.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(file: fileName, reason: (error as NSError).localizedDescription)
        }
        do {
            self = try JSONDecoder().decode(NetworkDescription.self, from: data)
        } catch {
            throw .malformed(file: fileName, reason: "\(error)")
        }
        guard format == "classify-network" else { throw .malformed(file: fileName, reason: "format is '\(format)', expected 'classify-network'") }
        guard (1...Self.supportedFormatVersion).contains(formatVersion) else {
            throw .unsupportedFormat(file: fileName, found: formatVersion, supported: Self.supportedFormatVersion)
        }
        guard input.layout == "NHWC", input.channels == 3, input.mean.count == 3, input.std.count == 3, input.std.allSatisfy({ $0 != 0 }) else {
            throw .malformed(file: fileName, reason: "input must be NHWC with 3 channels, 3 means and 3 non-zero stds")
        }
    }
}
