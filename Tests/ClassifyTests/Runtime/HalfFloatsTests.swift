import CClassifyKernels
import Testing

@testable import Classify

/// fp16 weight files are widened by `cls_halves_to_floats`: on every kernel path it must give
/// every finite half exactly (the portable conversion in `SafeTensorsFile.float(halfBits:)` is the
/// reference), from any byte alignment and for counts that end mid-vector.
struct HalfFloatsTests {
    @Test(arguments: KernelPath.allCases)
    func everyFiniteHalfWidensExactly(path: KernelPath) throws {
        // Every bit pattern whose exponent is not all ones: zeros, subnormals and normals, both signs.
        let halves = (0...UInt16.max).filter { $0 & 0x7C00 != 0x7C00 }
        for offset in [0, 1] {
            for count in [halves.count, 15, 17, 1] {
                var bytes = [UInt8](repeating: 0xAA, count: offset)
                for half in halves.prefix(count) { bytes += [UInt8(half & 0xFF), UInt8(half >> 8)] }
                var widened = [Float](repeating: .nan, count: count)
                try KernelPaths.with(path) {
                    bytes.withUnsafeBytes { raw in
                        widened.withUnsafeMutableBufferPointer { cls_halves_to_floats(raw.baseAddress! + offset, count, $0.baseAddress) }
                    }
                }
                let expected = halves.prefix(count).map { SafeTensorsFile.float(halfBits: $0) }
                let mismatches = zip(widened, expected).filter { $0.0.bitPattern != $0.1.bitPattern }.count
                #expect(mismatches == 0, "offset \(offset), count \(count)")
            }
        }
    }
}
