import Classify
import Foundation
import TagIndex
import Testing

/// Measures what storing feature prints as fp16 does to neighbour rankings, on real photos:
/// `CLASSIFY_FP16_PHOTOS=/path/to/folder swift test --filter FeaturePrintPrecisionTests`
/// (e.g. the 500 photos of imagenet-calib). Prints recall@10 of fp16 rankings against fp32.
@Suite struct FeaturePrintPrecisionTests {
    static let folder = ProcessInfo.processInfo.environment["CLASSIFY_FP16_PHOTOS"]

    @Test(.enabled(if: FeaturePrintPrecisionTests.folder != nil)) func halfPrecisionKeepsNeighbourRankings() async throws {
        let root = URL(fileURLWithPath: Self.folder!)
        let files = try FileManager.default.contentsOfDirectory(atPath: root.path).sorted()
            .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }
        let model = try ImageClassifierModel(contentsOf: URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Models/efficientnet-lite0"))
        let classifier = ImageClassifier(model: model)
        let prints = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            var results = [[Float]](repeating: [], count: files.count)
            var next = 0
            func add(_ group: inout ThrowingTaskGroup<(Int, [Float]), Error>) {
                let index = next, url = root.appending(path: files[index])
                group.addTask { (index, try classifier.classify(contentsOf: url).featurePrint.values) }
                next += 1
            }
            for _ in 0..<min(2, files.count) { add(&group) }
            while let (index, values) = try await group.next() {
                results[index] = values
                if next < files.count { add(&group) }
            }
            return results
        }
        let halves = try prints.map { try #require(FeaturePrint.decode(try FeaturePrint.encode($0))) }
        func dot(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).reduce(0) { $0 + $1.0 * $1.1 } }
        var overlap = 0, identicalOrder = 0, firstSame = 0
        var worstScoreError: Float = 0
        let k = 10
        for query in prints.indices {
            let others = prints.indices.filter { $0 != query }
            let exact = others.map { (dot(prints[query], prints[$0]), $0) }.sorted { $0 > $1 }
            let stored = others.map { (dot(halves[query], halves[$0]), $0) }.sorted { $0 > $1 }
            let exactTop = exact.prefix(k).map(\.1), storedTop = stored.prefix(k).map(\.1)
            overlap += Set(exactTop).intersection(storedTop).count
            if exactTop == storedTop { identicalOrder += 1 }
            if exactTop.first == storedTop.first { firstSame += 1 }
            for (score, other) in exact.prefix(k) { worstScoreError = max(worstScoreError, abs(score - dot(halves[query], halves[other]))) }
        }
        let n = Double(prints.count)
        print(String(format: "fp16 vs fp32 on %d photos: recall@10 %.4f, identical top-10 order %.1f%%, same nearest %.1f%%, max |score error| %.2e",
                     prints.count, Double(overlap) / (n * Double(k)), 100 * Double(identicalOrder) / n, 100 * Double(firstSame) / n, worstScoreError))
        #expect(Double(overlap) / (n * Double(k)) > 0.97)
    }
}
