import ClassifySupport
import Dispatch
import Foundation
import Testing

@testable import ClassifyGallery

/// A synchronous read behind an asynchronous protocol requirement, as the SQLite index answers
/// `IndexBackend`: where it runs is what `runPreferring` decides.
private protocol AsyncReader: Sendable {
    func read() async -> String
}

private final class SynchronousReader: AsyncReader {
    /// The label of the pool this runs on ("" on Swift's cooperative threads).
    func read() -> String { BlockingWork.currentLabel ?? "" }
}

/// `BlockingWork`: blocking reads stay off Swift's cooperative threads, and no more run at once
/// than its width.
@Suite struct BlockingWorkTests {
    @Test func synchronousWitnessesOfAsyncRequirementsRunOnItsThreads() async throws {
        let work = BlockingWork(width: 2, label: "test.blocking-work")
        let reader: any AsyncReader = SynchronousReader()
        #expect(await reader.read() == "")
        let label = try await work.runPreferring { await reader.read() }
        #expect(label == "test.blocking-work")
    }

    @Test func noMoreThanItsWidthRunAtOnce() async throws {
        let work = BlockingWork(width: 2, label: "test.width")
        let running = Locked(0)
        let most = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await work.runPreferring {
                        let now = running.withLock { count in
                            count += 1
                            return count
                        }
                        // Blocks its thread, as a SQLite read does.
                        usleep(20_000)
                        running.withLock { $0 -= 1 }
                        return now
                    }
                }
            }
            return try await group.reduce(0) { max($0, $1) }
        }
        #expect(most >= 1 && most <= 2)
    }
}
