/// Numbered slots taken and given back by concurrent tasks (a counting semaphore whose permits
/// have numbers); a task finding none free waits, without holding a thread, for the next one given
/// back. The slot given back last is taken first.
///
/// ```swift
/// let queue = SlotQueue(count: 4)
/// let slot = await queue.take()
/// defer { Task { await queue.give(back: slot) } }
/// ```
actor SlotQueue {
    private var free: [Int]
    private var waiting: [CheckedContinuation<Int, Never>] = []

    init(count: Int) { free = Array((0..<count).reversed()) }

    /// A free slot, waiting for one when all are taken.
    func take() async -> Int {
        if let slot = free.popLast() { return slot }
        return await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives `slot` back: to the longest-waiting task, or to the free ones.
    func give(back slot: Int) {
        if waiting.isEmpty { free.append(slot) } else { waiting.removeFirst().resume(returning: slot) }
    }
}
