import Testing

@testable import ClassifyIndexing

/// An idle worker waits on the walk's updates instead of sleeping a poll interval: it must wake
/// for an update that comes while it waits, not wait at all for one that came before, and never
/// hang when no update comes or its task is cancelled. The waits say whether an update or the
/// timeout ended them, so no test reads a clock; the time limit only turns a hang into a failure,
/// and is as long as the slowest suite's because a loaded CI machine can keep these tasks from
/// running for a minute (one run did).
@Suite(.timeLimit(.minutes(20))) struct ScanStateTests {
    @Test func anUpdateWakesAWaitingWorker() async {
        let scan = ScanState()
        let generation = scan.generation
        async let waited = scan.waitForUpdate(after: generation, timeout: .seconds(3600))
        // The update may land before or after the wait starts: either way the wait returns.
        scan.update { $0.candidates += 3 }
        #expect(await waited)
        #expect(scan.snapshot().candidates == 3)
        #expect(scan.generation == generation + 1)
    }

    @Test func anUpdateBeforeTheWaitReturnsAtOnce() async {
        let scan = ScanState()
        let generation = scan.generation
        scan.update { $0.complete = true }
        #expect(await scan.waitForUpdate(after: generation, timeout: .seconds(3600)))
        #expect(scan.snapshot().complete)
    }

    @Test func manyWaitersAllWake() async {
        let scan = ScanState()
        let generation = scan.generation
        let woken = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { await scan.waitForUpdate(after: generation, timeout: .seconds(3600)) }
            }
            scan.update { $0.scanned += 1 }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(woken == 8)
        #expect(scan.snapshot().scanned == 1)
    }

    @Test func withoutAnUpdateTheTimeoutEndsTheWait() async {
        let scan = ScanState()
        #expect(await !scan.waitForUpdate(after: scan.generation, timeout: .milliseconds(10)))
        #expect(scan.generation == 0)
    }

    @Test func cancellationEndsTheWait() async {
        let scan = ScanState()
        let waiter = Task { await scan.waitForUpdate(after: scan.generation, timeout: .seconds(3600)) }
        waiter.cancel()
        #expect(await !waiter.value)
        // A later update finds no waiter left to resume.
        scan.update { $0.interrupted = true }
        #expect(scan.snapshot().interrupted)
    }
}
