import CClassifyCodecs
import Foundation
import Testing

@testable import Classify

/// AVIF decodes run with the calling thread held to one CPU, so that dav1d (which sizes its thread
/// pool from that affinity) decodes a still picture without frame-threading buffers; the thread's
/// own affinity must come back whole afterwards, or every later task on it would be confined.
@Suite("Decoding on one CPU")
struct OneCPUDecodingTests {
    /// What the body saw, written through the C callback's context pointer.
    final class Observation { var count: Int32 = -1 }

    @Test func bodySeesOneCPUAndTheAffinityComesBack() {
        let before = cls_allowed_cpu_count()
        #expect(before >= 1, "the affinity of a thread can be read on Linux")
        let observation = Observation()
        withExtendedLifetime(observation) {
            cls_run_on_one_cpu({ context in
                Unmanaged<Observation>.fromOpaque(context!).takeUnretainedValue().count = cls_allowed_cpu_count()
            }, Unmanaged.passUnretained(observation).toOpaque())
        }
        #expect(observation.count == 1)
        #expect(cls_allowed_cpu_count() == before)
    }

    @Test(arguments: ["avif-plain.avif", "avif-irot.avif", "avif-alpha.avif"])
    func avifDecodeLeavesTheThreadAsItWas(file: String) throws {
        guard ImageDecoder.availableFormats.contains(.avif) else {
            print("skipped \(file): this libheif has no AVIF decoder")
            return
        }
        let url = try #require(Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/formats"))
        let before = cls_allowed_cpu_count()
        let image = try ImageDecoder().decode(Array(try Data(contentsOf: url)))
        #expect(image.format == .avif && image.width > 0)
        #expect(cls_allowed_cpu_count() == before)
    }
}
