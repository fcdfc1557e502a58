import Testing

@testable import Classify

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct AllocatorTuningTests {
    #if canImport(Glibc)
        @Test func glibcAcceptsTheSettings() {
            // AddressSanitizer replaces malloc and answers mallopt with "not supported".
            let addressSanitizer = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
            #expect(AllocatorTuning.keepFreedMemory() == !addressSanitizer)
            // Memory still works as before afterwards: a buffer of the size per-image code uses.
            let buffer = [UInt8](repeating: 7, count: 1 << 20)
            #expect(buffer.reduce(0) { $0 &+ Int($1) } == 7 << 20)
        }
    #endif
}
