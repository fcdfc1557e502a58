/// An immutable buffer of plain values on a 64-byte boundary, for the kernels' packed weights,
/// biases, offsets and scales (AVX-512 loads of a whole cache line never straddle two).
///
/// Filled once by `init`'s closure and never written again, hence `@unchecked Sendable`.
final class AlignedArray<Element: BitwiseCopyable>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    /// - Parameter fill: writes all `count` elements (the memory is not zeroed first: the packing
    ///   routines write every element, padding included, and a memset of 18 MB of weights would
    ///   cost milliseconds of load time).
    init(count: Int, fill: (UnsafeMutablePointer<Element>) -> Void) {
        self.count = count
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Element>.stride, alignment: 64)
        pointer = raw.bindMemory(to: Element.self, capacity: max(count, 1))
        fill(pointer)
    }

    /// A copy of `values`, aligned.
    convenience init(_ values: [Element]) {
        self.init(count: values.count) { destination in
            values.withUnsafeBufferPointer { if let source = $0.baseAddress { destination.update(from: source, count: $0.count) } }
        }
    }

    var base: UnsafePointer<Element> { UnsafePointer(pointer) }

    deinit { UnsafeMutableRawPointer(pointer).deallocate() }
}

/// The fp32 weights and biases of the float ops.
typealias AlignedFloats = AlignedArray<Float>
