import Foundation
import Testing
@testable import Classify

/// The whole network on the shipped weights against golden outputs of an independent float64
/// numpy implementation (Scripts/make-golden, which reads the original PyTorch checkpoint).
struct GoldenOutputTests {
    struct Golden: Decodable {
        struct Case: Decodable { var seed: UInt32; var logits: [Float]; var features: [Float]; var inputPrefix: [Float]? }
        var inputs: [Case]
    }

    static let golden: Golden = {
        let url = Bundle.module.url(forResource: "golden-lite0", withExtension: "json", subdirectory: "Fixtures")!
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    @Test func fixtureHasFiveInputs() {
        #expect(Self.golden.inputs.count >= 5)
        #expect(Self.golden.inputs.allSatisfy { $0.logits.count == 1000 && $0.features.count == 1280 })
    }

    @Test(arguments: [UInt32(1), 2, 3, 4, 5])
    func logitsAndFeaturesMatchTheReference(seed: UInt32) throws {
        let golden = try #require(Self.golden.inputs.first { $0.seed == seed })
        let model = ShippedModel.model
        let input = goldenInput(seed: seed, count: 224 * 224 * 3)
        if let prefix = golden.inputPrefix { #expect(Array(input.prefix(prefix.count)) == prefix) }
        let output = model.infer { _ = $0.update(fromContentsOf: input) }
        #expect(maximumAbsoluteDifference(output.logits, golden.logits) < 1e-3)
        #expect(maximumAbsoluteDifference(output.features, golden.features) < 1e-3)
        #expect(output.logits.indices.max { output.logits[$0] < output.logits[$1] } == golden.logits.indices.max { golden.logits[$0] < golden.logits[$1] })
    }

    /// The same on every kernel path this CPU has (AVX-512, AVX2+FMA, portable), one and two threads.
    @Test(arguments: KernelPaths.withThreads)
    func everyKernelPathMatchesTheReference(path: (kernels: KernelPath, threads: Int)) throws {
        let golden = try #require(Self.golden.inputs.first { $0.seed == 3 })
        let input = goldenInput(seed: 3, count: 224 * 224 * 3)
        try KernelPaths.with(path.kernels, threads: path.threads) {
            let output = ShippedModel.model.infer { _ = $0.update(fromContentsOf: input) }
            #expect(maximumAbsoluteDifference(output.logits, golden.logits) < 1e-3)
            #expect(maximumAbsoluteDifference(output.features, golden.features) < 1e-3)
        }
    }
}
