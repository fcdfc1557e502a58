/// Turns a `ModelDescription` and its weights into a `CompiledGraph`: resolves value names,
/// infers and checks every shape, loads and packs each op's tensors, and plans memory.
///
/// New ops register here by type; each op's file holds its own builder (`GraphOperationBuilder`).
enum GraphCompiler {
    static var builders: [any GraphOperationBuilder.Type] {[
        Conv2DOperation.self, AddOperation.self, GlobalAveragePoolOperation.self,
        FullyConnectedOperation.self, SoftmaxOperation.self,
    ]}

    static func compile(_ description: ModelDescription, weights: SafeTensorsFile, descriptionFile: String = "model.json") throws(ModelLoadingError) -> CompiledGraph {
        let contract = description.input
        guard contract.layout == "NHWC" else {
            throw .invalidGraph(file: descriptionFile, node: contract.name, reason: "input layout \(contract.layout) is not supported (NHWC only)")
        }
        var context = GraphBuildContext(weights: weights, descriptionFile: descriptionFile)
        context.define(contract.name, shape: FeatureMapShape(height: contract.height, width: contract.width, channels: contract.channels))
        var operations: [any GraphOperation] = []
        for node in description.nodes {
            guard let builder = builders.first(where: { $0.opName == node.op }) else {
                throw .invalidGraph(file: descriptionFile, node: node.name, reason: "unknown op '\(node.op)'")
            }
            guard context.valueID(node.output) == nil else {
                throw .invalidGraph(file: descriptionFile, node: node.name, reason: "output '\(node.output)' is written twice")
            }
            let operation = try builder.build(node, context: &context)
            operations.append(operation)
        }
        for output in [description.outputs.logits, description.outputs.probabilities, description.outputs.features] {
            guard context.valueID(output) != nil else {
                throw .invalidGraph(file: descriptionFile, node: output, reason: "declared output is never computed")
            }
        }

        let valueCount = context.names.count
        var firstUse = Array(repeating: -1, count: valueCount)
        var lastUse = Array(repeating: -1, count: valueCount)
        for (position, operation) in operations.enumerated() {
            firstUse[operation.output] = position
            lastUse[operation.output] = max(lastUse[operation.output], position)
            for input in operation.inputs { lastUse[input] = max(lastUse[input], position) }
        }
        for output in [description.outputs.logits, description.outputs.probabilities, description.outputs.features] {
            lastUse[context.valueID(output)!] = operations.count
        }
        let plan = MemoryPlan(sizes: context.shapes.map(\.elementCount), firstUse: firstUse, lastUse: lastUse)
        return CompiledGraph(
            operations: operations, shapes: context.shapes, valueNames: context.names, plan: plan,
            scratchCount: operations.map(\.scratchCount).max() ?? 0, input: 0)
    }
}

/// An op type that can be built from a `model.json` node.
protocol GraphOperationBuilder {
    /// The `op` string in `model.json`.
    static var opName: String { get }
    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation
}

/// What a builder may ask while the graph is being compiled.
struct GraphBuildContext {
    let weights: SafeTensorsFile
    let descriptionFile: String
    private(set) var names: [String] = []
    private(set) var shapes: [FeatureMapShape] = []
    private var ids: [String: ValueID] = [:]

    init(weights: SafeTensorsFile, descriptionFile: String) {
        self.weights = weights
        self.descriptionFile = descriptionFile
    }

    func valueID(_ name: String) -> ValueID? { ids[name] }

    @discardableResult
    mutating func define(_ name: String, shape: FeatureMapShape) -> ValueID {
        ids[name] = names.count
        names.append(name)
        shapes.append(shape)
        return names.count - 1
    }

    func error(_ node: ModelDescription.Node, _ reason: String) -> ModelLoadingError {
        .invalidGraph(file: descriptionFile, node: node.name, reason: reason)
    }

    /// The node's inputs, which must exist and number `count`.
    func inputs(of node: ModelDescription.Node, count: Int) throws(ModelLoadingError) -> [(id: ValueID, shape: FeatureMapShape)] {
        guard node.inputs.count == count else { throw error(node, "takes \(count) input(s), has \(node.inputs.count)") }
        var result: [(ValueID, FeatureMapShape)] = []
        for name in node.inputs {
            guard let id = ids[name] else { throw error(node, "input '\(name)' is not computed before this node") }
            result.append((id, shapes[id]))
        }
        return result
    }

    func required<T>(_ value: T?, _ attribute: String, of node: ModelDescription.Node) throws(ModelLoadingError) -> T {
        guard let value else { throw error(node, "attribute '\(attribute)' is missing") }
        return value
    }

    func activation(of node: ModelDescription.Node) throws(ModelLoadingError) -> Activation {
        guard let activation = Activation(rawValue: node.activation ?? "none") else {
            throw error(node, "unknown activation '\(node.activation ?? "")'")
        }
        return activation
    }

    func tensor(_ name: String?, _ attribute: String, shape: [Int], of node: ModelDescription.Node) throws(ModelLoadingError) -> [Float] {
        try weights.floats(required(name, attribute, of: node), shape: shape)
    }
}
