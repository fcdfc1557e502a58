import Foundation
import Testing
@testable import Classify

/// Runs test code on a chosen kernel path (AVX-512, AVX2+FMA, portable) and thread count.
///
/// The path is this thread's own (`KernelPath.run(on:_:)`): other tests running meanwhile keep
/// the best path, so their results never depend on which paths are being compared. The thread
/// count is process-wide, so tests that choose it take one lock.
///
/// Usage: `try KernelPaths.with(.avx2, threads: 2) { output = run() }`
enum KernelPaths {
    /// Every kernel path with one and two threads, for test arguments.
    static let withThreads: [(KernelPath, Int)] = KernelPath.allCases.flatMap { path in [(path, 1), (path, 2)] }

    private static let lock = NSLock()

    /// Runs `body` with its kernels on `path` and `threads` compute threads, then restores one
    /// thread; skips the test case when this CPU cannot run `path`.
    static func with(_ path: KernelPath, threads: Int = 1, _ body: () throws -> Void) throws {
        try require(path)
        try lock.withLock {
            ComputeThreads.configure(threads)
            defer { ComputeThreads.configure(1) }
            try KernelPath.run(on: path) {
                #expect(KernelPath.current == path)
                try body()
            }
        }
    }

    /// Skips the current test case when this CPU cannot run `path`, saying what it lacks.
    static func require(_ path: KernelPath) throws {
        if path > KernelPath.best {
            try Test.cancel("\(path.rawValue) kernels not tested: this CPU lacks \(path.requirement)")
        }
    }
}
