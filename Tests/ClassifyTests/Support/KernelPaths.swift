import Foundation
import Testing
@testable import Classify

/// Runs test code on a chosen kernel path (AVX-512, AVX2+FMA, portable) and thread count.
///
/// Both settings are process-wide, so tests that choose them take one lock: two suites running in
/// parallel never switch the path under each other. (Other tests may run on whatever path is set
/// at the moment; every path computes the same results, only the speed differs.)
///
/// Usage: `try KernelPaths.with(.avx2, threads: 2) { output = run() }`
enum KernelPaths {
    /// Every kernel path with one and two threads, for test arguments.
    static let withThreads: [(KernelPath, Int)] = KernelPath.allCases.flatMap { path in [(path, 1), (path, 2)] }

    private static let lock = NSLock()

    /// Runs `body` with the kernels on `path` and `threads` compute threads, then restores the
    /// best path and one thread; skips the test case when this CPU cannot run `path`.
    static func with(_ path: KernelPath, threads: Int = 1, _ body: () throws -> Void) throws {
        try require(path)
        try lock.withLock {
            let used = KernelPath.select(path)
            #expect(used == path)
            ComputeThreads.configure(threads)
            defer {
                KernelPath.select(.best)
                ComputeThreads.configure(1)
            }
            try body()
        }
    }

    /// Skips the current test case when this CPU cannot run `path`, saying what it lacks.
    static func require(_ path: KernelPath) throws {
        if path > KernelPath.best {
            try Test.cancel("\(path.rawValue) kernels not tested: this CPU lacks \(path.requirement)")
        }
    }
}
