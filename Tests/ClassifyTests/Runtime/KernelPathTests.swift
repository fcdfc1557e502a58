import Foundation
import ClassifySupport
import Testing
@testable import Classify

/// `KernelPath.run(on:_:)`: a path chosen for one thread's work, so a test comparing paths never
/// switches the kernels of other work running in the same process.
@Suite struct KernelPathTests {
    /// The path `KernelPath.current` reports on a new thread.
    static func pathOnAnotherThread() -> KernelPath? {
        let seen = Locked<KernelPath?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            seen.withLock { $0 = KernelPath.current }
            done.signal()
        }
        thread.start()
        done.wait()
        return seen.withLock { $0 }
    }

    @Test func aPathChosenForOneThreadLeavesTheOthersAlone() {
        let processWide = KernelPath.current
        KernelPath.run(on: .portable) {
            #expect(KernelPath.current == .portable)
            #expect(Self.pathOnAnotherThread() == processWide)
            KernelPath.run(on: .avx512) {
                #expect(KernelPath.current == min(.avx512, KernelPath.best), "capped at what the CPU has")
            }
            #expect(KernelPath.current == .portable, "the outer choice is restored")
        }
        #expect(KernelPath.current == processWide)
    }
}
