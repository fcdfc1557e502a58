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
        graph = model.graph
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
