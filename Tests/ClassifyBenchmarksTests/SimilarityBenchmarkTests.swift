import Foundation
import Testing
@testable import ClassifyBenchmarks
import ClassifyTestSupport
import TagIndex

/// The similarity benchmark's synthetic prints on small runs: the planted families are found,
/// never how fast (the timed runs are `classify-bench similar`).
@Suite struct SimilarityBenchmarkTests {
    @Test func smallBenchmarkFindsThePlantedFamilies() throws {
        let directory = try ScratchFolder("bench")
        let result = try SimilarityBenchmark(
            databaseURL: directory.url.appending(path: "index.sqlite"), imageCount: 1_000, duplicateImageCount: 1_000, searches: 5
        ).run()
        #expect(result.imageCount == 1_000)
        #expect(result.duplicateImageCount == 1_000)
        #expect(result.duplicateGroups == 20 && result.expectedGroups == 20)
        #expect(result.report.contains("similar, all images"))
    }
}
