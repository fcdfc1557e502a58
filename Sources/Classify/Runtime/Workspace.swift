/// Per-inference memory: one arena for every activation of the graph and one scratch buffer,
/// both allocated once and reused for every image. Not shared between tasks: each concurrent
/// inference borrows its own from the model's pool (hence `@unchecked Sendable`: it moves between
/// tasks through the pool but is only ever used by one at a time).
final class Workspace: @unchecked Sendable {
    let arena: UnsafeMutablePointer<Float>
    let arenaCount: Int
    let scratch: UnsafeMutablePointer<Float>
    let scratchCount: Int

    init(arenaCount: Int, scratchCount: Int) {
        self.arenaCount = arenaCount
        self.scratchCount = max(scratchCount, 16)
        arena = Self.allocate(arenaCount)
        scratch = Self.allocate(self.scratchCount)
    }

    deinit {
        UnsafeMutableRawPointer(arena).deallocate()
        UnsafeMutableRawPointer(scratch).deallocate()
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<Float> {
        // 64-byte alignment keeps vector loads within one cache line.
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(count, 1) * MemoryLayout<Float>.size, alignment: 64)
        let floats = raw.bindMemory(to: Float.self, capacity: max(count, 1))
        floats.initialize(repeating: 0, count: max(count, 1))
        return floats
    }
}
