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
                    var low = Float.infinity, high = -Float.infinity
                    for x in values {
                        low = min(low, x)
                        high = max(high, x)
                    }
                    var seen = ranges[value] ?? Extremes()
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

    /// The ranges so far as a table for `quantization.json`.
    ///
    /// Usage: `let table = recorder.table(source: source, method: .meanMinMax)`
    public func table(source: CalibrationFile.Source, method: Method = .meanMinMax) -> QuantizationTable {
        var activations: [String: QuantizationTable.Range] = [:]
        let images = Double(max(imageCount, 1))
        for (value, seen) in ranges {
            activations[graph.valueNames[value]] = switch method {
            case .minMax: .init(min: seen.min, max: seen.max)
            case .meanMinMax: .init(min: Float(seen.sumOfMinima / images), max: Float(seen.sumOfMaxima / images))
            }
        }
        return QuantizationTable(
            model: description.name, modelVersion: description.modelVersion, source: source, method: method.rawValue, activations: activations)
    }
}
