import Foundation
import ClassifySupport

/// One network of the face detector, loaded from a `classify-network` directory and compiled on
/// demand for each input size it is run at (P-Net runs fully convolutionally on every level of
/// the image pyramid; R-Net and O-Net always at their fixed size). Compiled graphs are cached;
/// immutable apart from that cache, and shared by concurrent detections.
final class DetectorNetwork: Sendable {
    let description: NetworkDescription
    let directoryName: String
    private let weights: SafeTensorsFile
    private let graphs = Locked<[Int: CompiledGraph]>([:])
    /// Idle workspaces per input size, so a run does not allocate (and page in) its arena again;
    /// at most `pooledFloatLimit` floats are kept idle in all.
    private let workspaces = Locked<(pool: [Int: [Workspace]], floats: Int)>(([:], 0))
    static let pooledFloatLimit = 64 << 20  // 256 MB
    /// Cached graphs kept at most (different photo sizes give different pyramid levels).
    static let cacheLimit = 96

    init(contentsOf directory: URL) throws(ModelLoadingError) {
        description = try NetworkDescription(contentsOf: directory.appending(path: "model.json"))
        directoryName = directory.lastPathComponent
        weights = try SafeTensorsFile(contentsOf: directory.appending(path: description.weights))
        // Compile once at the declared size so a broken graph fails at load, not at first use.
        _ = try graph(height: description.input.height, width: description.input.width)
    }

    /// The graph for one input size.
    func graph(height: Int, width: Int) throws(ModelLoadingError) -> CompiledGraph {
        let key = height << 32 | width
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
            outputs: description.outputs.values.sorted(), weights: weights, descriptionFile: directoryName + "/model.json")
        graphs.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll() }
            cache[key] = graph
        }
        return graph
    }

    /// Runs `body` with the graph for this size and an idle workspace for it, returned afterwards.
    private func withWorkspace<Result>(height: Int, width: Int, _ body: (CompiledGraph, Workspace) -> Result) throws(ModelLoadingError) -> Result {
        let graph = try graph(height: height, width: width)
        let key = height << 32 | width
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
        try withWorkspace(height: height, width: width) { graph, workspace in
            fill(UnsafeMutableBufferPointer(start: graph.pointer(to: graph.input, in: workspace), count: graph.shapes[graph.input].elementCount))
            graph.run(in: workspace)
            var result: [String: [Float]] = [:]
            for (role, name) in description.outputs {
                let value = graph.value(named: name)!
                result[role] = Array(UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: graph.shapes[value].elementCount))
            }
            return result
        }
    }

    /// Runs the network `count` times at one size on one workspace (R-Net and O-Net over the
    /// candidate crops); `fill(i, buffer)` writes the i-th normalized input.
    func runEach(count: Int, height: Int, width: Int, fill: (Int, UnsafeMutableBufferPointer<Float>) -> Void) throws(ModelLoadingError) -> [[String: [Float]]] {
        guard count > 0 else { return [] }
        return try withWorkspace(height: height, width: width) { graph, workspace in
            let input = UnsafeMutableBufferPointer(start: graph.pointer(to: graph.input, in: workspace), count: graph.shapes[graph.input].elementCount)
            let outputs = description.outputs.map { ($0.key, graph.value(named: $0.value)!) }
            return (0..<count).map { index in
                fill(index, input)
                graph.run(in: workspace)
                var result: [String: [Float]] = [:]
                for (role, value) in outputs {
                    result[role] = Array(UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: graph.shapes[value].elementCount))
                }
                return result
            }
        }
    }

    /// The output map size for an input size (P-Net: one cell per 12x12 window at stride 2).
    func outputShape(_ role: String, height: Int, width: Int) throws(ModelLoadingError) -> FeatureMapShape {
        let graph = try graph(height: height, width: width)
        return graph.shapes[graph.value(named: description.outputs[role]!)!]
    }
}
