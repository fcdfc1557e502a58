/// Turns a `ModelDescription` and its weights into a `CompiledGraph`: resolves value names,
/// infers and checks every shape, loads and packs each op's tensors, and plans memory.
///
/// New ops register here by type; each op's file holds its own builder (`GraphOperationBuilder`).
enum GraphCompiler {
    static var builders: [any GraphOperationBuilder.Type] {[
        Conv2DOperation.self, AddOperation.self, GlobalAveragePoolOperation.self,
        FullyConnectedOperation.self, SoftmaxOperation.self, PReLUOperation.self, MaxPoolOperation.self,
        ResizeBilinearOperation.self, DepthToSpaceOperation.self,
        AveragePoolOperation.self, PaddedAddOperation.self,
    ]}

    /// - Parameters:
    ///   - fuseResiduals: fold each residual `Add` into the pointwise convolution that produces one
    ///     of its operands (see `fuseResidualAdds`); off only to test the fusion.
    ///   - fuseExpandDepthwise: run a large pointwise expansion and the depthwise convolution
    ///     reading it as one banded op (see `fuseExpandDepthwise`); off only to test the fusion.
    ///   - quantization: the calibrated ranges of an int8 network: the ops the table covers are
    ///     built in int8 (see `GraphQuantizer`); nil: all fp32.
    ///   - fuseQuantizedInputs: let a depthwise convolution write the uint8 input of the int8
    ///     pointwise convolution that alone reads it (see `fuseQuantizedInputs`); off only to test
    ///     the fusion.
    static func compile(
        _ description: ModelDescription, weights: SafeTensorsFile, descriptionFile: String = "model.json",
        quantization: QuantizationTable? = nil, fuseResiduals: Bool = true, fuseExpandDepthwise: Bool = true,
        fuseQuantizedInputs: Bool = true
    ) throws(ModelLoadingError) -> CompiledGraph {
        let contract = description.input
        guard contract.layout == "NHWC" else {
            throw .invalidGraph(file: descriptionFile, node: contract.name, reason: "input layout \(contract.layout) is not supported (NHWC only)")
        }
        return try compile(
            nodes: description.nodes, input: contract.name,
            inputShape: FeatureMapShape(height: contract.height, width: contract.width, channels: contract.channels),
            outputs: [description.outputs.logits, description.outputs.probabilities, description.outputs.features],
            weights: weights, descriptionFile: descriptionFile, quantization: quantization,
            fuseResiduals: fuseResiduals, fuseExpandDepthwise: fuseExpandDepthwise, fuseQuantizedInputs: fuseQuantizedInputs)
    }

    /// Compiles `nodes` for one input shape; `outputs` are the values read after a run (kept
    /// alive to the end and never fused away).
    ///
    /// - Parameters:
    ///   - batch: inputs per run (see `CompiledGraph.run(items:in:)`); the arena holds that many
    ///     items of every value.
    ///   - fusePReLU: run each PReLU in the store of the op producing its input (see
    ///   `fusePReLUs`); off only to test the fusion.
    static func compile(
        nodes: [ModelDescription.Node], input: String, inputShape: FeatureMapShape, outputs: [String],
        weights: SafeTensorsFile, descriptionFile: String, batch: Int = 1, quantization: QuantizationTable? = nil,
        fuseResiduals: Bool = true, fuseExpandDepthwise: Bool = true, fusePReLU: Bool = true, fuseQuantizedInputs: Bool = true
    ) throws(ModelLoadingError) -> CompiledGraph {
        precondition(batch >= 1)
        var context = GraphBuildContext(weights: weights, descriptionFile: descriptionFile, batch: batch, quantization: quantization)
        context.define(input, shape: inputShape)
        var operations: [any GraphOperation] = []
        for node in nodes {
            guard let builder = builders.first(where: { $0.opName == node.op }) else {
                throw .invalidGraph(file: descriptionFile, node: node.name, reason: "unknown op '\(node.op)'")
            }
            guard context.valueID(node.output) == nil else {
                throw .invalidGraph(file: descriptionFile, node: node.name, reason: "output '\(node.output)' is written twice")
            }
            let operation = try builder.build(node, context: &context)
            operations.append(operation)
        }
        for output in outputs {
            guard context.valueID(output) != nil else {
                throw .invalidGraph(file: descriptionFile, node: output, reason: "declared output is never computed")
            }
        }

        let graphOutputs = Set(outputs.compactMap(context.valueID))
        if fuseResiduals { operations = fuseResidualAdds(operations, valueCount: context.names.count, keep: graphOutputs) }
        if fuseExpandDepthwise { operations = Self.fuseExpandDepthwise(operations, valueCount: context.names.count, keep: graphOutputs) }
        if fusePReLU { operations = fusePReLUs(operations, valueCount: context.names.count, keep: graphOutputs) }
        if fuseQuantizedInputs { operations = Self.fuseQuantizedInputs(operations, valueCount: context.names.count, keep: graphOutputs) }

        let valueCount = context.names.count
        var firstUse = Array(repeating: -1, count: valueCount)
        var lastUse = Array(repeating: -1, count: valueCount)
        for (position, operation) in operations.enumerated() {
            firstUse[operation.output] = position
            lastUse[operation.output] = max(lastUse[operation.output], position)
            for input in operation.inputs { lastUse[input] = max(lastUse[input], position) }
        }
        for output in outputs {
            lastUse[context.valueID(output)!] = operations.count
        }
        // Values no op writes any more (conv outputs folded into an Add) take no space.
        let sizes = context.shapes.indices.map { $0 == 0 || firstUse[$0] >= 0 ? context.shapes[$0].elementCount * batch : 0 }
        let plan = MemoryPlan(sizes: sizes, firstUse: firstUse, lastUse: lastUse)
        return CompiledGraph(
            operations: operations, shapes: context.shapes, valueNames: context.names, plan: plan,
            scratchCount: operations.map(\.scratchCount).max() ?? 0, input: 0, batch: batch)
    }
}

extension GraphCompiler {
    /// How many ops read each value.
    private static func readerCounts(_ operations: [any GraphOperation], valueCount: Int) -> [Int] {
        var readers = [Int](repeating: 0, count: valueCount)
        for operation in operations { for input in operation.inputs { readers[input] += 1 } }
        return readers
    }

    /// The index in `operations` of the op writing each value.
    private static func producers(_ operations: [any GraphOperation]) -> [ValueID: Int] {
        Dictionary(operations.enumerated().map { ($1.output, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Removes every `Add` one of whose operands is the output of a pointwise convolution or a
    /// bilinear resize that nothing else reads: that op adds the other operand in its store and
    /// writes the Add's output itself, so the sum never makes an extra pass over memory. The other operand
    /// must already exist when the convolution runs (it always does in a chain with skips).
    static func fuseResidualAdds(_ operations: [any GraphOperation], valueCount: Int, keep: Set<ValueID>) -> [any GraphOperation] {
        let readers = readerCounts(operations, valueCount: valueCount)
        var result: [any GraphOperation] = []
        var producer: [ValueID: Int] = [:]  // value -> index in result
        for operation in operations {
            if let add = operation as? AddOperation, add.inputs.count == 2, fuse(add, into: &result, producer: &producer, readers: readers, keep: keep) {
                continue
            }
            producer[operation.output] = result.count
            result.append(operation)
        }
        return result
    }

    /// Replaces each pointwise convolution whose output (larger than L2) is read only by a
    /// depthwise convolution with one `PointwiseDepthwiseOperation` at the depthwise op's place.
    static func fuseExpandDepthwise(_ operations: [any GraphOperation], valueCount: Int, keep: Set<ValueID>) -> [any GraphOperation] {
        let readers = readerCounts(operations, valueCount: valueCount)
        let producer = producers(operations)
        var removed = Set<Int>()
        var result = operations
        for (index, operation) in operations.enumerated() {
            guard let depthwise = operation as? Conv2DOperation, depthwise.strategy == .depthwise,
                let middle = depthwise.inputs.first, readers[middle] == 1, !keep.contains(middle),
                let expandIndex = producer[middle], let expand = operations[expandIndex] as? Conv2DOperation,
                expand.outputShape.elementCount * MemoryLayout<Float>.size > PointwiseDepthwiseOperation.minimumExpandedBytes,
                let fused = PointwiseDepthwiseOperation(expand: expand, depthwise: depthwise)
            else { continue }
            result[index] = fused
            removed.insert(expandIndex)
        }
        return result.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// Lets each depthwise convolution whose output is read only by an int8 pointwise convolution
    /// (as its input, not its residual) write that convolution's uint8 rows itself
    /// (`QuantizingDepthwiseOperation`, or a `PointwiseDepthwiseOperation` made to quantize), and
    /// the pointwise one read them as they are.
    static func fuseQuantizedInputs(_ operations: [any GraphOperation], valueCount: Int, keep: Set<ValueID>) -> [any GraphOperation] {
        let readers = readerCounts(operations, valueCount: valueCount)
        let producer = producers(operations)
        var result = operations
        for (index, operation) in operations.enumerated() {
            guard let pointwise = operation as? QuantizedPointwiseConvOperation, !pointwise.readsQuantizedInput,
                let source = pointwise.inputs.first, readers[source] == 1, !keep.contains(source),
                let depthwiseIndex = producer[source], let fused = quantizing(operations[depthwiseIndex], for: pointwise.matrix)
            else { continue }
            result[depthwiseIndex] = fused
            result[index] = pointwise.readingQuantizedInput()
        }
        return result
    }

    /// `operation` writing the uint8 input of the int8 convolution of `matrix`, if it is a
    /// depthwise convolution (alone or after its fused expansion) that can.
    private static func quantizing(_ operation: any GraphOperation, for matrix: QuantizedMatrix) -> (any GraphOperation)? {
        if let depthwise = operation as? Conv2DOperation { return QuantizingDepthwiseOperation(depthwise: depthwise, for: matrix) }
        if let fused = operation as? PointwiseDepthwiseOperation, fused.quantizedOutput == nil { return fused.quantizing(for: matrix) }
        return nil
    }

    /// Replaces each PReLU whose input is written by the op just before it and read by nothing
    /// else: a direct convolution applies the slopes in its own store (`fusingPReLU`); any other
    /// op becomes one `FusedPReLUOperation` (that op writing the PReLU's output, slopes applied in
    /// place).
    private static func fused<Base: GraphOperation>(_ base: Base, _ prelu: PReLUOperation) -> any GraphOperation {
        FusedPReLUOperation(base: base, prelu: prelu)
    }

    static func fusePReLUs(_ operations: [any GraphOperation], valueCount: Int, keep: Set<ValueID>) -> [any GraphOperation] {
        let readers = readerCounts(operations, valueCount: valueCount)
        var result: [any GraphOperation] = []
        for operation in operations {
            if let prelu = operation as? PReLUOperation, let previous = result.last, previous.output == prelu.inputs[0],
                readers[previous.output] == 1, !keep.contains(previous.output), !(previous is any PReLUFusedOperation)
            {
                result[result.count - 1] = (previous as? Conv2DOperation)?.fusingPReLU(prelu) ?? fused(previous, prelu)
                continue
            }
            result.append(operation)
        }
        return result
    }

    /// `operation` with an Add of `value` in its store, if it can take one: a pointwise
    /// convolution (fp32 or int8) or a bilinear resize.
    private static func fusingResidual(_ operation: any GraphOperation, _ value: ValueID, activation: Activation, output: ValueID) -> (any GraphOperation)? {
        if let conv = operation as? Conv2DOperation { return conv.fusingResidual(value, activation: activation, output: output) }
        if let conv = operation as? QuantizedPointwiseConvOperation { return conv.fusingResidual(value, activation: activation, output: output) }
        if let resize = operation as? ResizeBilinearOperation { return resize.fusingResidual(value, activation: activation, output: output) }
        return nil
    }

    private static func fuse(
        _ add: AddOperation, into result: inout [any GraphOperation], producer: inout [ValueID: Int], readers: [Int], keep: Set<ValueID>
    ) -> Bool {
        for (mine, other) in [(add.inputs[0], add.inputs[1]), (add.inputs[1], add.inputs[0])] where mine != other {
            guard readers[mine] == 1, !keep.contains(mine), let index = producer[mine],
                producer[other].map({ $0 < index }) ?? true,
                let fused = fusingResidual(result[index], other, activation: add.activation, output: add.output)
            else { continue }
            result[index] = fused
            producer[add.output] = index
            return true
        }
        return false
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
    /// Inputs per run the graph is compiled for.
    let batch: Int
    /// The calibrated ranges when the network is compiled for int8 (`GraphQuantizer`), else nil.
    let quantization: QuantizationTable?
    private(set) var names: [String] = []
    private(set) var shapes: [FeatureMapShape] = []
    private var ids: [String: ValueID] = [:]

    init(weights: SafeTensorsFile, descriptionFile: String, batch: Int = 1, quantization: QuantizationTable? = nil) {
        self.weights = weights
        self.descriptionFile = descriptionFile
        self.batch = batch
        self.quantization = quantization
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

    /// The tensor's values in place (no copy; see `SafeTensorsFile.withFloats`), for packing.
    func withTensor<Result>(
        _ name: String?, _ attribute: String, shape: [Int], of node: ModelDescription.Node,
        _ body: (UnsafeBufferPointer<Float>) throws(ModelLoadingError) -> Result
    ) throws(ModelLoadingError) -> Result {
        try weights.withFloats(required(name, attribute, of: node), shape: shape, body)
    }
}
