import CClassifyKernels

/// A network ready to run: ops in execution order with packed weights, every value's shape, and
/// the arena layout. Immutable and `Sendable`: one instance serves all concurrent inferences,
/// each with its own `Workspace`.
///
/// A graph compiled for a batch of `batch` inputs holds each value's items back to back in the
/// arena (`shapes` are per item); a run may use fewer items than that.
struct CompiledGraph: Sendable {
    let operations: [any GraphOperation]
    let shapes: [FeatureMapShape]
    let valueNames: [String]
    let plan: MemoryPlan
    let scratchCount: Int
    let input: ValueID
    let batch: Int

    func value(named name: String) -> ValueID? { valueNames.firstIndex(of: name) }

    func makeWorkspace() -> Workspace { Workspace(arenaCount: plan.arenaCount, scratchCount: scratchCount) }

    /// Where the input tensor goes (NHWC, `shapes[input].elementCount` floats).
    func pointer(to value: ValueID, in workspace: Workspace) -> UnsafeMutablePointer<Float> {
        workspace.arena + plan.offsets[value]
    }

    /// Runs every op on one input (the first item of a batch), which must already be written at
    /// `pointer(to: input, in:)`.
    func run(in workspace: Workspace) {
        Self.withDenormalsFlushed {
            for operation in operations { run(operation, in: workspace) }
        }
    }

    /// Runs every op on the first `items` inputs of the batch (at most `batch`), written back to
    /// back from `pointer(to: input, in:)`: batched ops in one call each, the others item by item.
    func run(items: Int, in workspace: Workspace) {
        precondition(items >= 1 && items <= batch, "\(items) items in a batch of \(batch)")
        Self.withDenormalsFlushed {
            for operation in operations {
                let inputs = operation.inputs.map { UnsafePointer(pointer(to: $0, in: workspace)) }
                let output = pointer(to: operation.output, in: workspace)
                if let batched = operation as? any BatchedGraphOperation {
                    batched.run(batch: items, inputs: inputs, output: output, scratch: workspace.scratch)
                    continue
                }
                let inputCounts = operation.inputs.map { shapes[$0].elementCount }, outputCount = shapes[operation.output].elementCount
                for item in 0..<items {
                    operation.run(
                        inputs: zip(inputs, inputCounts).map { $0 + item * $1 }, output: output + item * outputCount,
                        scratch: workspace.scratch)
                }
            }
        }
    }

    /// Runs `body` with denormals flushed to zero on this thread (FTZ/DAZ), restoring the
    /// caller's floating-point mode afterwards. ReLU6 networks produce tiny values whose
    /// denormal arithmetic is very slow on x86; the workers of `ComputeThreads` always flush.
    static func withDenormalsFlushed<Result>(_ body: () throws -> Result) rethrows -> Result {
        let saved = cls_flush_denormals_begin()
        defer { cls_flush_denormals_end(saved) }
        return try body()
    }

    /// Runs one op (the benchmark times them one by one).
    @inline(__always)
    func run(_ operation: any GraphOperation, in workspace: Workspace) {
        let inputs = operation.inputs.map { UnsafePointer(pointer(to: $0, in: workspace)) }
        operation.run(inputs: inputs, output: pointer(to: operation.output, in: workspace), scratch: workspace.scratch)
    }
}
