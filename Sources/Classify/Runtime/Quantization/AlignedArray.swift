/// An immutable buffer of plain values on a 64-byte boundary, for the int8 kernels' packed
/// weights, offsets and scales (the counterpart of `AlignedFloats` for any element type).
///
/// Filled once by `init`'s closure and never written again, hence `@unchecked Sendable`.
final class AlignedArray<Element: BitwiseCopyable>: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<Element>
    let count: Int

    /// - Parameter fill: writes all `count` elements.
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
