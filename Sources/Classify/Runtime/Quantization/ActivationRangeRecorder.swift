import Foundation

/// Measures the range of every activation the int8 ops will read, by running the fp32 network
/// (compiled as the int8 one is) on calibration images and keeping, for each such op's input, the
/// minimum and maximum over all images and the mean of each image's own minimum and maximum.
///
/// The table takes the means (``Method/meanMinMax``, TensorFlow's moving-average ranges without the
/// decay): a residual sum that reaches -65 on one photo and stays within +-30 on the others gets a
/// step twice as fine, at the cost of clipping that photo's extremes. On the 500 calibration photos
/// it kept 4 more top-1 labels than min-max did; per-image percentiles (99.9 to 99.999%) kept
/// fewer than either (docs/performance.md, "int8").
///
/// ```swift
/// var recorder = try ActivationRangeRecorder(model: model)
/// for image in images { recorder.add(try classifier.decode(contentsOf: image)) }
/// let table = recorder.table(source: source)
/// ```
public struct ActivationRangeRecorder {
    let graph: CompiledGraph
    let workspace: Workspace
    let description: ModelDescription
    var preprocessor = Preprocessor()
    /// Per value read by a quantizable op: extremes and sums of per-image extremes so far.
    private(set) var ranges: [ValueID: Extremes] = [:]

    /// What was seen of one tensor.
    struct Extremes {
        var min = Float.infinity
        var max = -Float.infinity
        var sumOfMinima = 0.0
        var sumOfMaxima = 0.0
        /// Per channel (the innermost axis): the extremes over all images.
        var channelMinima: [Double] = []
        var channelMaxima: [Double] = []
    }

    /// How a tensor's range is taken from what the images showed.
    ///
    /// Usage: `recorder.table(source: source, method: .meanMinMax)`
    public enum Method: String, Sendable, CaseIterable {
        /// The lowest and highest value of any image.
        case minMax = "min-max"
        /// The mean over images of each image's lowest and highest value.
        case meanMinMax = "mean-min-max"
    }
    /// Images added so far.
    public private(set) var imageCount = 0

    /// Compiles the fp32 graph of `model`'s directory for recording.
    public init(model: ImageClassifierModel) throws(ModelLoadingError) {
        let weights = try SafeTensorsFile(contentsOf: model.directory.appending(path: model.description.weights))
        graph = try GraphCompiler.compile(model.description, weights: weights)
        workspace = graph.makeWorkspace()
        description = model.description
    }

    /// Runs the network on one decoded image and widens the ranges.
    public mutating func add(_ image: DecodedImage) {
        let input = graph.pointer(to: graph.input, in: workspace)
        preprocessor.preprocess(image, into: UnsafeMutableBufferPointer(start: input, count: graph.shapes[graph.input].elementCount))
        addTensor()
    }

    /// Runs the network on the input tensor already written at the graph's input.
    mutating func addTensor() {
        CompiledGraph.withDenormalsFlushed {
            for operation in graph.operations {
                if GraphQuantizer.isQuantizable(operation), let value = operation.inputs.first {
                    let values = UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: graph.shapes[value].elementCount)
                    let channels = graph.shapes[value].channels
                    var lows = [Float](repeating: .infinity, count: channels), highs = [Float](repeating: -.infinity, count: channels)
                    for start in stride(from: 0, to: values.count, by: channels) {
                        for c in 0..<channels {
                            let x = values[start + c]
                            lows[c] = min(lows[c], x)
                            highs[c] = max(highs[c], x)
                        }
                    }
                    let low = lows.min() ?? 0, high = highs.max() ?? 0
                    var seen = ranges[value] ?? Extremes()
                    if seen.channelMinima.isEmpty {
                        seen.channelMinima = Array(repeating: .infinity, count: channels)
                        seen.channelMaxima = Array(repeating: -.infinity, count: channels)
                    }
                    for c in 0..<channels {
                        seen.channelMinima[c] = min(seen.channelMinima[c], Double(lows[c]))
                        seen.channelMaxima[c] = max(seen.channelMaxima[c], Double(highs[c]))
                    }
                    seen.min = min(seen.min, low)
                    seen.max = max(seen.max, high)
                    seen.sumOfMinima += Double(low)
                    seen.sumOfMaxima += Double(high)
                    ranges[value] = seen
                }
                graph.run(operation, in: workspace)
            }
        }
        imageCount += 1
    }

    /// Writes `tensor` (NHWC, the model's input size) as the input and records it (tests).
    mutating func add(tensor: [Float]) {
        let input = graph.pointer(to: graph.input, in: workspace)
        tensor.withUnsafeBufferPointer { input.update(from: $0.baseAddress!, count: graph.shapes[graph.input].elementCount) }
        addTensor()
    }

    /// The smoothing the int8 ops' inputs get by default: SmoothQuant's own default alpha, in the
    /// middle of the range that measured best (docs/performance.md, "The network at int8": top-1 on
    /// the 500 calibration photos 0.880 without smoothing, 0.882-0.890 for alpha 0.4-0.9; fp32 0.888).
    public static let defaultSmoothing: Float = 0.5

    /// The ranges so far as a table for `quantization.json`; `smoothing` nil writes no smoothing.
    ///
    /// Usage: `let table = recorder.table(source: source, method: .meanMinMax)`
    public func table(
        source: CalibrationFile.Source, method: Method = .meanMinMax, smoothing: Float? = ActivationRangeRecorder.defaultSmoothing
    ) -> QuantizationTable {
        var activations: [String: QuantizationTable.Range] = [:]
        var channels: [String: QuantizationTable.ChannelRanges] = [:]
        let images = Double(max(imageCount, 1))
        for (value, seen) in ranges {
            let name = graph.valueNames[value]
            activations[name] = switch method {
            case .minMax: .init(min: seen.min, max: seen.max)
            case .meanMinMax: .init(min: Float(seen.sumOfMinima / images), max: Float(seen.sumOfMaxima / images))
            }
            channels[name] = .init(min: seen.channelMinima.map { Float($0) }, max: seen.channelMaxima.map { Float($0) })
        }
        var table = QuantizationTable(
            model: description.name, modelVersion: description.modelVersion, source: source, method: method.rawValue, activations: activations)
        table.channels = channels
        table.smoothing = smoothing
        return table
    }
}
