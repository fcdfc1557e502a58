/// Places every graph value at an offset in one arena so that values whose lifetimes overlap
/// never share memory, and a value's memory is reused once its last reader has run.
///
/// Lifetimes are intervals of op positions: a value lives from the op that writes it to the last
/// op that reads it (or to the end, for graph outputs). Values are placed greedily in order of
/// definition at the lowest offset that does not collide with a live value (first fit), which for
/// chain-shaped CNNs with short residual branches stays within a few percent of the lower bound.
struct MemoryPlan: Sendable {
    /// Offset in floats of each value; indexed by `ValueID`.
    let offsets: [Int]
    /// Floats the arena needs.
    let arenaCount: Int

    /// Rounds sizes up so every value starts on a 64-byte boundary (16 floats).
    static let alignment = 16

    init(sizes: [Int], firstUse: [Int], lastUse: [Int]) {
        precondition(sizes.count == firstUse.count && sizes.count == lastUse.count)
        var offsets = Array(repeating: 0, count: sizes.count)
        var placed: [(offset: Int, size: Int, first: Int, last: Int)] = []
        var arena = 0
        let order = sizes.indices.sorted { (firstUse[$0], $0) < (firstUse[$1], $1) }
        for value in order {
            let size = (sizes[value] + Self.alignment - 1) / Self.alignment * Self.alignment
            let live = placed
                .filter { $0.first <= lastUse[value] && firstUse[value] <= $0.last }
                .sorted { $0.offset < $1.offset }
            var candidate = 0
            for other in live where candidate + size > other.offset {
                candidate = max(candidate, other.offset + other.size)
            }
            offsets[value] = candidate
            placed.append((candidate, size, firstUse[value], lastUse[value]))
            arena = max(arena, candidate + size)
        }
        self.offsets = offsets
        self.arenaCount = arena
    }
}
