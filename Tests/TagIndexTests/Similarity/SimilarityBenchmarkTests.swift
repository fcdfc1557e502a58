import Foundation
import Testing
@testable import TagIndex

/// Runs the similarity benchmark when TAGINDEX_BENCH_SIMILAR=1 (use a release build:
/// `TAGINDEX_BENCH_SIMILAR=1 swift test -c release --filter SimilarityBenchmarkTests`).
/// TAGINDEX_BENCH_IMAGES overrides the library size (default 100,000).
@Suite struct SimilarityBenchmarkTests {
    static var enabled: Bool { ProcessInfo.processInfo.environment["TAGINDEX_BENCH_SIMILAR"] == "1" }

    @Test(.enabled(if: SimilarityBenchmarkTests.enabled)) func similarityBenchmark() throws {
        let directory = try TemporaryDirectory()
        let images = ProcessInfo.processInfo.environment["TAGINDEX_BENCH_IMAGES"].flatMap(Int.init) ?? 100_000
        let result = try SimilarityBenchmark(databaseURL: directory.databaseURL, imageCount: images)
            .run { print("bench:", $0) }
        print(result.report)
        #expect(result.search.count == 30)
    }

    @Test func smallBenchmarkFindsThePlantedFamilies() throws {
        let directory = try TemporaryDirectory()
        let result = try SimilarityBenchmark(
            databaseURL: directory.databaseURL, imageCount: 1_000, duplicateImageCount: 1_000, searches: 5
        ).run()
        #expect(result.imageCount == 1_000)
        #expect(result.duplicateImageCount == 1_000)
        #expect(result.duplicateGroups == 20 && result.expectedGroups == 20)
        #expect(result.report.contains("similar, all images"))
    }
}
