import Foundation

/// The calibrated range of every activation tensor the int8 ops read, as written by
/// `classify-tool calibrate --quantization` to `quantization.json` in the model directory (format in
/// `Models/FORMAT.md`). The weights are not in it: they are quantized per output channel from the
/// fp32 weights at load, so the file is a few kilobytes and stays in step with `model.safetensors`.
///
/// ```swift
/// let table = try QuantizationTable(contentsOf: directory.appending(path: "quantization.json"))
/// print(table.activations["block3_add"]!)
/// ```
public struct QuantizationTable: Sendable, Codable, Equatable {
    /// The `formatVersion` this library reads and writes.
    public static let supportedFormatVersion = 1
    /// The file's name in a model directory.
    public static let fileName = "quantization.json"

    public var format = "classify-quantization"
    public var formatVersion = QuantizationTable.supportedFormatVersion
    /// Model the ranges were measured for (`name` and `modelVersion` of model.json).
    public var model: String
    public var modelVersion: String
    /// Where the calibration images came from and how many there were.
    public var source: CalibrationFile.Source
    /// How each range was taken from the observed values (`mean-min-max` or `min-max`, see
    /// ``ActivationRangeRecorder/Method``).
    public var method: String
    /// Value name (as in model.json) -> observed range, fp32, over every calibration image.
    public var activations: [String: Range]

    /// Value name -> each channel's range (lowest and highest over all images), which the
    /// smoothing of the int8 ops' inputs reads. Absent in files written before smoothing.
    public var channels: [String: ChannelRanges]?
    /// SmoothQuant's alpha (0...1) for the int8 ops' inputs: channel c is divided by
    /// `a[c]^alpha / w[c]^(1 - alpha)` and its weights multiplied by it (see `InputCalibration`);
    /// nil: every input quantized per tensor, unsmoothed.
    public var smoothing: Float?

    /// One tensor's observed range per channel.
    public struct ChannelRanges: Sendable, Codable, Equatable {
        public var min: [Float]
        public var max: [Float]

        /// Usage: `QuantizationTable.ChannelRanges(min: [0, -1], max: [6, 2])`
        public init(min: [Float], max: [Float]) {
            self.min = min
            self.max = max
        }
    }

    /// One tensor's observed range.
    public struct Range: Sendable, Codable, Equatable {
        public var min: Float
        public var max: Float

        /// Usage: `QuantizationTable.Range(min: 0, max: 6)`
        public init(min: Float, max: Float) {
            self.min = min
            self.max = max
        }
    }

    /// Usage: `QuantizationTable(model: "efficientnet-lite0", modelVersion: "1", source: source, method: "min-max", activations: [:])`
    public init(model: String, modelVersion: String, source: CalibrationFile.Source, method: String, activations: [String: Range]) {
        self.model = model
        self.modelVersion = modelVersion
        self.source = source
        self.method = method
        self.activations = activations
    }

    /// Reads and checks a table (format, version, finite ranges).
    public init(contentsOf url: URL) throws(ModelLoadingError) {
        let file = url.lastPathComponent
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw .unreadable(file: file, reason: error.localizedDescription) }
        do { self = try JSONDecoder().decode(QuantizationTable.self, from: data) } catch {
            throw .malformed(file: file, reason: "\(error)")
        }
        guard format == "classify-quantization" else { throw .malformed(file: file, reason: "format is '\(format)', not classify-quantization") }
        guard formatVersion == Self.supportedFormatVersion else {
            throw .unsupportedFormat(file: file, found: formatVersion, supported: Self.supportedFormatVersion)
        }
        for (name, range) in activations where !(range.min.isFinite && range.max.isFinite && range.min <= range.max) {
            throw .malformed(file: file, reason: "activation '\(name)' has range \(range.min)...\(range.max)")
        }
        if let smoothing, !(0...1).contains(smoothing) { throw .malformed(file: file, reason: "smoothing \(smoothing) is not within 0...1") }
        for (name, ranges) in channels ?? [:]
        where ranges.min.count != ranges.max.count || !zip(ranges.min, ranges.max).allSatisfy({ $0.isFinite && $1.isFinite && $0 <= $1 }) {
            throw .malformed(file: file, reason: "the channel ranges of '\(name)' are not finite, ordered pairs")
        }
    }

    /// Writes the table as sorted, indented JSON (rerunning on the same images rewrites it byte for byte).
    public func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try (encoder.encode(self) + Data("\n".utf8)).write(to: url, options: .atomic)
    }
}
