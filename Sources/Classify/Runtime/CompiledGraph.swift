import CClassifyKernels

/// A network ready to run: ops in execution order with packed weights, every value's shape, and
/// the arena layout. Immutable and `Sendable`: one instance serves all concurrent inferences,
/// each with its own `Workspace`.
struct CompiledGraph: Sendable {
    let operations: [any GraphOperation]
    let shapes: [FeatureMapShape]
    let valueNames: [String]
    let plan: MemoryPlan
    let scratchCount: Int
    let input: ValueID

    func value(named name: String) -> ValueID? { valueNames.firstIndex(of: name) }

    func makeWorkspace() -> Workspace { Workspace(arenaCount: plan.arenaCount, scratchCount: scratchCount) }

    /// Where the input tensor goes (NHWC, `shapes[input].elementCount` floats).
    func pointer(to value: ValueID, in workspace: Workspace) -> UnsafeMutablePointer<Float> {
        workspace.arena + plan.offsets[value]
    }

    /// Runs every op; the input must already be written at `pointer(to: input, in:)`.
    func run(in workspace: Workspace) {
        Self.withDenormalsFlushed {
            for operation in operations { run(operation, in: workspace) }
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
