/// Index of a value (an activation) in a compiled graph.
typealias ValueID = Int

/// One step of a compiled graph. Implementations hold their packed weights and are immutable,
/// so one compiled graph serves every concurrent inference; all mutable state lives in the
/// `Workspace` handed to `run`.
protocol GraphOperation: Sendable {
    var name: String { get }
    var inputs: [ValueID] { get }
    var output: ValueID { get }
    /// Floats of per-inference scratch this op needs (im2col buffers and the like).
    var scratchCount: Int { get }
    /// A short label for profiles, e.g. `Conv2D depthwise 5x5/2`.
    var kindDescription: String { get }
    /// Computes `output` from `inputs`. Pointers come from the workspace's arena.
    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>)
}

/// An op that runs a whole batch in one call: a dense layer as one GEMM over the items' rows,
/// a per-pixel op over every item's pixels at once. Other ops run item by item.
protocol BatchedGraphOperation: GraphOperation {
    /// Computes `output` for `batch` items stored back to back (each value's items one after
    /// another, a value's element count apart).
    func run(batch: Int, inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>)
}

extension GraphOperation {
    var scratchCount: Int { 0 }
    var kindDescription: String { String(describing: type(of: self)).replacingOccurrences(of: "Operation", with: "") }
}
