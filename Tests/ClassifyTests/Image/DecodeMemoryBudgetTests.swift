import Foundation
import Synchronization
import Testing

@testable import Classify

@Suite("Decode memory budget")
struct DecodeMemoryBudgetTests {
    /// Counts the bodies running at once and the bytes they hold, as the budget sees them.
    final class Occupancy: Sendable {
        let state = Mutex((running: 0, bytes: 0, mostRunning: 0, mostBytes: 0))

        func enter(_ bytes: Int) {
            state.withLock {
                $0.running += 1
                $0.bytes += bytes
                $0.mostRunning = max($0.mostRunning, $0.running)
                $0.mostBytes = max($0.mostBytes, $0.bytes)
            }
        }

        func leave(_ bytes: Int) { state.withLock { $0.running -= 1; $0.bytes -= bytes } }
    }

    /// Runs `sizes` on threads of their own against `budget`, each body yielding a few times so
    /// the others get the chance to overlap it (the bounds hold whatever the scheduling).
    static func run(_ sizes: [Int], _ budget: DecodeMemoryBudget) -> Occupancy {
        let occupancy = Occupancy()
        DispatchQueue.concurrentPerform(iterations: sizes.count) { index in
            for _ in 0..<20 {
                budget.reserving(bytes: sizes[index]) {
                    occupancy.enter(sizes[index])
                    for _ in 0..<3 { sched_yield() }
                    occupancy.leave(sizes[index])
                }
            }
        }
        return occupancy
    }

    @Test func decodesThatDoNotFitTogetherRunOneAtATime() {
        let budget = DecodeMemoryBudget(capacity: 100)
        let occupancy = Self.run(Array(repeating: 60, count: 6), budget)
        #expect(occupancy.state.withLock { $0.mostRunning } == 1)
        #expect(budget.peakReserved == 60)
    }

    @Test func theBytesHeldNeverPassTheCapacity() {
        let budget = DecodeMemoryBudget(capacity: 100)
        let occupancy = Self.run([10, 30, 45, 20, 55, 5, 40, 25], budget)
        #expect(occupancy.state.withLock { $0.mostBytes } <= 100)
        #expect(budget.peakReserved <= 100)
    }

    @Test func aDecodeLargerThanTheBudgetRunsAlone() {
        let budget = DecodeMemoryBudget(capacity: 100)
        let occupancy = Occupancy()
        let notAlone = Mutex(0)
        let sizes = [250, 10, 10, 10]
        DispatchQueue.concurrentPerform(iterations: sizes.count) { index in
            for _ in 0..<20 {
                budget.reserving(bytes: sizes[index]) {
                    occupancy.enter(sizes[index])
                    if sizes[index] > 100, occupancy.state.withLock({ $0.running }) != 1 { notAlone.withLock { $0 += 1 } }
                    for _ in 0..<3 { sched_yield() }
                    occupancy.leave(sizes[index])
                }
            }
        }
        #expect(notAlone.withLock { $0 } == 0)
        #expect(budget.peakReserved == 250)
    }

    @Test func aThrowingBodyGivesItsBytesBack() {
        struct Failure: Error {}
        let budget = DecodeMemoryBudget(capacity: 100)
        #expect(throws: Failure.self) { try budget.reserving(bytes: 90) { throw Failure() } }
        // Were the 90 bytes kept, this second reservation would wait for ever.
        #expect(budget.reserving(bytes: 90) { 1 } == 1)
    }
}
