/// An immutable float buffer on a 64-byte boundary, for packed weights that the C kernels read
/// with 32-byte vector loads (a Swift array's elements are only 16-byte aligned, so half of those
/// loads would straddle two cache lines).
///
/// Filled once by `init`'s closure and never written again, hence `@unchecked Sendable`: one
/// compiled graph shares it across all concurrent inferences.
final class AlignedFloats: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Float>
    let count: Int

    /// - Parameter fill: writes all `count` floats (the memory is not zeroed first: the packing
    ///   routines write every element, padding included, and a memset of 18 MB of weights would
    ///   cost milliseconds of load time).
    init(count: Int, fill: (UnsafeMutablePointer<Float>) -> Void) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.stride, alignment: 64)
        pointer = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        fill(pointer)
    }

    /// A copy of `values`, aligned.
    convenience init(_ values: [Float]) {
        self.init(count: values.count) { destination in
            values.withUnsafeBufferPointer { if let source = $0.baseAddress { destination.update(from: source, count: $0.count) } }
        }
    }

    var base: UnsafePointer<Float> { UnsafePointer(pointer) }

    deinit { UnsafeMutableRawPointer(pointer).deallocate() }
}
