import Foundation

/// The contents of a model directory's `model.json`: the network as a graph of ops, the input
/// contract, provenance and the output labels. The format is documented in `Models/FORMAT.md`.
///
/// ```swift
/// let description = try ModelDescription(contentsOf: directory.appending(path: "model.json"))
/// print(description.name, description.nodes.count)
/// ```
public struct ModelDescription: Codable, Sendable {
    /// The `formatVersion` this library reads.
    public static let supportedFormatVersion = 1

    public var format: String
    public var formatVersion: Int
    /// Short model name, e.g. `efficientnet-lite0`.
    public var name: String
    /// Version of the converted weights; a change means stored labels are stale.
    public var modelVersion: String
    public var provenance: Provenance
    /// File name of the weights, relative to the model directory.
    public var weights: String
    public var input: InputContract
    public var outputs: Outputs
    public var nodes: [Node]
    public var labels: [Label]

    /// Where the weights came from.
    public struct Provenance: Codable, Sendable {
        public var package: String
        public var packageVersion: String
        public var file: String
        public var sha256: String
        public var license: String
    }

    /// What the network expects: size, layout and normalization, and how to get there from a photo.
    public struct InputContract: Codable, Sendable {
        public var name: String
        public var layout: String
        public var height: Int
        public var width: Int
        public var channels: Int
        public var channelOrder: String
        public var mean: [Float]
        public var std: [Float]
        /// The short side is resized to this before the center crop.
        public var resizeShortSide: Int
        public var resizeFilter: String
        public var crop: String
    }

    /// Names of the graph values the library reads out.
    public struct Outputs: Codable, Sendable {
        public var logits: String
        public var probabilities: String
        public var features: String
    }

    /// One op of the graph. Attributes that an op does not use are absent.
    public struct Node: Codable, Sendable {
        public var name: String
        public var op: String
        public var inputs: [String]
        public var output: String
        public var weight: String?
        public var bias: String?
        public var inChannels: Int?
        public var outChannels: Int?
        public var kernel: [Int]?
        public var stride: [Int]?
        public var padding: String?
        public var groups: Int?
        public var activation: String?
        public var inFeatures: Int?
        public var outFeatures: Int?
        /// MaxPool only: PyTorch's `ceil_mode` (partial windows at the bottom/right edge count).
        public var ceilMode: Bool?
        /// Conv2D with `padding` `explicit` only: zeros added [top, left, bottom, right].
        public var pads: [Int]?
        /// ResizeBilinear only: the output [height, width] (or `scale`).
        public var size: [Int]?
        /// ResizeBilinear only: the output as whole multiples [height, width] of the input, so the
        /// network runs at any input size (instead of `size`).
        public var scale: [Int]?
        /// ResizeBilinear only: TensorFlow's `align_corners` (corner pixels' centers line up).
        public var alignCorners: Bool?
        /// ResizeBilinear only: TensorFlow's `half_pixel_centers` (pixel centers at +0.5).
        public var halfPixelCenters: Bool?
        /// DepthToSpace only: the side of the square block each pixel's channels spread into.
        public var blockSize: Int?
    }

    /// One output class.
    public struct Label: Codable, Sendable {
        public var index: Int
        /// WordNet 3.0 noun synset id, e.g. `n02099601`.
        public var wnid: String
        /// Stable identifier: lowercase words joined by `_`, e.g. `golden_retriever`.
        public var identifier: String
        /// Display name, e.g. `golden retriever`.
        public var name: String
    }

    /// Reads and checks `model.json`.
    public init(contentsOf url: URL) throws(ModelLoadingError) {
        let fileName = url.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw .unreadable(file: fileName, reason: (error as NSError).localizedDescription)
        }
        do {
            self = try JSONDecoder().decode(ModelDescription.self, from: data)
        } catch {
            throw .malformed(file: fileName, reason: "\(error)")
        }
        guard format == "classify-model" else { throw .malformed(file: fileName, reason: "format is '\(format)', expected 'classify-model'") }
        guard formatVersion == Self.supportedFormatVersion else {
            throw .unsupportedFormat(file: fileName, found: formatVersion, supported: Self.supportedFormatVersion)
        }
        for (position, label) in labels.enumerated() where label.index != position {
            throw .malformed(file: fileName, reason: "label '\(label.identifier)' has index \(label.index) at position \(position)")
        }
    }
}
