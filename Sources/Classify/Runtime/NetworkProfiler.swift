/// Runs a loaded classifier's network whole or one op at a time on an input it is given, for the
/// latency benchmark (`classify-tool bench`, classify-bench): the benchmark sees ops by index and
/// their descriptions, the compiled graph stays internal.
///
/// Usage:
/// ```swift
/// let profiler = NetworkProfiler(model: model, input: pixels)
/// NetworkProfiler.withDenormalsFlushed { for index in 0..<profiler.operationCount { profiler.runOperation(at: index) } }
/// ```
package struct NetworkProfiler {
    private let graph: CompiledGraph
    private let workspace: Workspace

    /// A workspace for `model`'s network with `input` (NHWC, the network's input size) in place.
    package init(model: ImageClassifierModel, input: [Float]) {
        self.init(graph: model.graph, input: input)
    }

    /// A workspace for a BlazeFace detector's network at its input size (192x192x3, NHWC; or
    /// `height` x `width`, multiples of 32, for the enlarged look), with `input` in place; nil for
    /// a detector of another kind or a size the graph cannot take. Usage:
    /// `NetworkProfiler(faceDetector: try .shared(.blazeFace), input: pixels)?.run()`
    package init?(faceDetector model: FaceDetectorModel, input: [Float], height: Int? = nil, width: Int? = nil) {
        guard let network = model.blazeFace?.network,
              let graph = try? network.graph(height: height ?? network.description.input.height, width: width ?? network.description.input.width)
        else { return nil }
        self.init(graph: graph, input: input)
    }

    /// A workspace for dlib's face recognition network (150x150x3, NHWC) with `input` in place.
    /// Usage: `NetworkProfiler(faceRecognizer: try FaceRecognizer.shared().network, input: pixels).run()`
    package init(faceRecognizer model: FaceDescriptorModel, input: [Float]) {
        self.init(graph: model.graph, input: input)
    }

    /// The network's input: height, width and channels. Usage: `profiler.inputShape.elementCount`
    package var inputShape: (height: Int, width: Int, channels: Int) {
        let shape = graph.shapes[graph.input]
        return (shape.height, shape.width, shape.channels)
    }

    private init(graph: CompiledGraph, input: [Float]) {
        self.graph = graph
        workspace = graph.makeWorkspace()
        let pointer = graph.pointer(to: graph.input, in: workspace)
        input.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: min($0.count, graph.shapes[graph.input].elementCount)) }
    }

    /// The ops of the network, in execution order.
    package var operationCount: Int { graph.operations.count }

    /// Runs the whole network once.
    package func run() { graph.run(in: workspace) }

    /// Runs the op at `index` alone (on whatever its inputs hold).
    package func runOperation(at index: Int) { graph.run(graph.operations[index], in: workspace) }

    /// The op's name, its kind and the shape of its output.
    package func describeOperation(at index: Int) -> (name: String, kind: String, outputShape: String) {
        let operation = graph.operations[index]
        return (operation.name, operation.kindDescription, graph.shapes[operation.output].description)
    }

    /// Runs `body` with denormals flushed to zero, as inference does.
    package static func withDenormalsFlushed<Result>(_ body: () throws -> Result) rethrows -> Result {
        try CompiledGraph.withDenormalsFlushed(body)
    }
}
