import Foundation

/// Measures the range of every activation the int8 ops will read, by running the fp32 network
/// (compiled as the int8 one is) on calibration images and
/// keeping the minimum and maximum of each such op's input.
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
    /// Per value read by a quantizable op: (min, max) so far.
    private(set) var ranges: [ValueID: (min: Float, max: Float)] = [:]
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
                    var (low, high) = ranges[value] ?? (.infinity, -.infinity)
                    for x in values {
                        low = min(low, x)
                        high = max(high, x)
                    }
                    ranges[value] = (low, high)
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
    public func table(source: CalibrationFile.Source) -> QuantizationTable {
        var activations: [String: QuantizationTable.Range] = [:]
        for (value, range) in ranges { activations[graph.valueNames[value]] = .init(min: range.min, max: range.max) }
        return QuantizationTable(
            model: description.name, modelVersion: description.modelVersion, source: source, method: "min-max", activations: activations)
    }
}
