import Foundation
import ClassifySupport

/// One network of the face detector, loaded from a `classify-network` directory and compiled on
/// demand for each input size it is run at (P-Net runs fully convolutionally on every level of
/// the image pyramid; R-Net and O-Net at their fixed size, on batches of crops). Compiled graphs
/// are cached; immutable apart from that cache, and shared by concurrent detections.
final class DetectorNetwork: Sendable {
    let description: NetworkDescription
    let directoryName: String
    private let weights: SafeTensorsFile
    private let graphs = Locked<[GraphKey: CompiledGraph]>([:])
    /// Idle workspaces per graph, so a run does not allocate (and page in) its arena again;
    /// at most `pooledFloatLimit` floats are kept idle in all.
    private let workspaces = Locked<(pool: [GraphKey: [Workspace]], floats: Int)>(([:], 0))
    static let pooledFloatLimit = 64 << 20  // 256 MB
    /// Cached graphs kept at most (different photo sizes give different pyramid levels).
    static let cacheLimit = 96
    /// Crops per run of R-Net and O-Net (`runBatched`), chosen by measurement: see docs/faces.md, "How faces are found".
    static let batchSize = 16

    /// A compiled graph's input size and batch.
    private struct GraphKey: Hashable {
        var height: Int, width: Int, batch: Int
    }

    init(contentsOf directory: URL) throws(ModelLoadingError) {
        description = try NetworkDescription(contentsOf: directory.appending(path: "model.json"))
        directoryName = directory.lastPathComponent
        weights = try SafeTensorsFile(contentsOf: directory.appending(path: description.weights))
        // Compile once at the declared size so a broken graph fails at load, not at first use.
        _ = try graph(height: description.input.height, width: description.input.width)
    }

    /// The graph for one input size and batch.
    func graph(height: Int, width: Int, batch: Int = 1) throws(ModelLoadingError) -> CompiledGraph {
        let key = GraphKey(height: height, width: width, batch: batch)
        if let graph = graphs.withLock({ $0[key] }) { return graph }
        guard height >= description.input.height, width >= description.input.width,
            description.input.variableSize || (height == description.input.height && width == description.input.width)
        else {
            throw .invalidGraph(file: directoryName + "/model.json", node: description.input.name,
                                reason: "cannot run at \(width)x\(height) (input \(description.input.width)x\(description.input.height))")
        }
        let graph = try GraphCompiler.compile(
            nodes: description.nodes, input: description.input.name,
            inputShape: FeatureMapShape(height: height, width: width, channels: description.input.channels),
            outputs: description.outputs.values.sorted(), weights: weights, descriptionFile: directoryName + "/model.json", batch: batch)
        graphs.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll() }
            cache[key] = graph
        }
        return graph
    }

    /// Runs `body` with the graph for this size and batch and an idle workspace for it, returned afterwards.
    private func withWorkspace<Result>(height: Int, width: Int, batch: Int = 1, _ body: (CompiledGraph, Workspace) -> Result) throws(ModelLoadingError) -> Result {
        let graph = try graph(height: height, width: width, batch: batch)
        let key = GraphKey(height: height, width: width, batch: batch)
        let pooled = workspaces.withLock { state -> Workspace? in
            guard let workspace = state.pool[key]?.popLast() else { return nil }
            state.floats -= workspace.arenaCount + workspace.scratchCount
            return workspace
        }
        let workspace = pooled ?? graph.makeWorkspace()
        defer {
            workspaces.withLock { state in
                let size = workspace.arenaCount + workspace.scratchCount
                if state.floats + size > Self.pooledFloatLimit { state = ([:], 0) }
                guard size <= Self.pooledFloatLimit else { return }
                state.pool[key, default: []].append(workspace)
                state.floats += size
            }
        }
        return body(graph, workspace)
    }

    /// Runs the network on one normalized NHWC input written by `fill`, returning the outputs by
    /// role (`probabilities`, `boxes`, `landmarks`), each NHWC.
    func run(height: Int, width: Int, fill: (UnsafeMutableBufferPointer<Float>) -> Void) throws(ModelLoadingError) -> [String: [Float]] {
        let count = height * width * description.input.channels
        return try runBatched(count: 1, height: height, width: width) { _, input in fill(UnsafeMutableBufferPointer(start: input, count: count)) }
    }

    /// Runs the network on `count` inputs of one size (R-Net and O-Net over the candidate crops),
    /// up to `batchSize` per run: `fill(i, buffer)` writes the i-th normalized input. Returns each
    /// output role's values for every input, back to back (the i-th input's at i times the
    /// role's size).
    func runBatched(count: Int, height: Int, width: Int, fill: (Int, UnsafeMutablePointer<Float>) -> Void) throws(ModelLoadingError) -> [String: [Float]] {
        guard count > 0 else { return [:] }
        return try withWorkspace(height: height, width: width, batch: min(count, Self.batchSize)) { graph, workspace in
            let input = graph.pointer(to: graph.input, in: workspace), inputCount = graph.shapes[graph.input].elementCount
            let outputs = description.outputs.map { ($0.key, graph.value(named: $0.value)!) }
            var result: [String: [Float]] = [:]
            for (role, value) in outputs { result[role, default: []].reserveCapacity(count * graph.shapes[value].elementCount) }
            for start in stride(from: 0, to: count, by: graph.batch) {
                let items = min(graph.batch, count - start)
                for item in 0..<items { fill(start + item, input + item * inputCount) }
                graph.run(items: items, in: workspace)
                for (role, value) in outputs {
                    result[role]!.append(contentsOf: UnsafeBufferPointer(
                        start: graph.pointer(to: value, in: workspace), count: items * graph.shapes[value].elementCount))
                }
            }
            return result
        }
    }

    /// The output map size for an input size (P-Net: one cell per 12x12 window at stride 2).
    func outputShape(_ role: String, height: Int, width: Int) throws(ModelLoadingError) -> FeatureMapShape {
        let graph = try graph(height: height, width: width)
        return graph.shapes[graph.value(named: description.outputs[role]!)!]
    }
}
