import Testing

@testable import Classify

@Suite struct AllocatorTuningTests {
    #if canImport(Glibc)
        @Test func glibcAcceptsTheSettings() {
            #expect(AllocatorTuning.keepFreedMemory())
            // Memory still works as before afterwards: a buffer of the size per-image code uses.
            let buffer = [UInt8](repeating: 7, count: 1 << 20)
            #expect(buffer.reduce(0) { $0 &+ Int($1) } == 7 << 20)
        }
    #endif
}
