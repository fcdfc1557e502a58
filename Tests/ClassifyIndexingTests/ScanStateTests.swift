import Testing

@testable import ClassifyIndexing

/// An idle worker waits on the walk's updates instead of sleeping a poll interval: it must wake
/// for an update that comes while it waits, not wait at all for one that came before, and never
/// hang when no update comes or its task is cancelled. The timeouts are an hour, so a wait that
/// returns proves the wake-up, whatever the machine's speed; the time limits only turn a hang into
/// a failure.
@Suite(.timeLimit(.minutes(1))) struct ScanStateTests {
    @Test func anUpdateWakesAWaitingWorker() async {
        let scan = ScanState()
        let generation = scan.generation
        async let waited: Void = scan.waitForUpdate(after: generation, timeout: .seconds(3600))
        // The update may land before or after the wait starts: either way the wait returns.
        scan.update { $0.candidates += 3 }
        await waited
        #expect(scan.snapshot().candidates == 3)
        #expect(scan.generation == generation + 1)
    }

    @Test func anUpdateBeforeTheWaitReturnsAtOnce() async {
        let scan = ScanState()
        let generation = scan.generation
        scan.update { $0.complete = true }
        await scan.waitForUpdate(after: generation, timeout: .seconds(3600))
        #expect(scan.snapshot().complete)
    }

    @Test func manyWaitersAllWake() async {
        let scan = ScanState()
        let generation = scan.generation
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { await scan.waitForUpdate(after: generation, timeout: .seconds(3600)) }
            }
            scan.update { $0.scanned += 1 }
            await group.waitForAll()
        }
        #expect(scan.snapshot().scanned == 1)
    }

    @Test func withoutAnUpdateTheTimeoutEndsTheWait() async {
        let scan = ScanState()
        await scan.waitForUpdate(after: scan.generation, timeout: .milliseconds(10))
        #expect(scan.generation == 0)
    }

    @Test func cancellationEndsTheWait() async {
        let scan = ScanState()
        let waiter = Task { await scan.waitForUpdate(after: scan.generation, timeout: .seconds(3600)) }
        waiter.cancel()
        await waiter.value
        // A later update finds no waiter left to resume.
        scan.update { $0.interrupted = true }
        #expect(scan.snapshot().interrupted)
    }
}
