import ArgumentParser
import Classify
import ClassifyBenchmarks
import Foundation
import TagIndex

/// `classify-bench similar`: similarity search and near-duplicate grouping on a synthetic index.
struct SimilarBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract: "Measure similarity search and duplicate grouping on a synthetic index.",
        discussion: """
            Builds an index of synthetic feature prints (default 100,000, with
            planted families of near copies), then times `similar` over all
            images and within one folder, and `duplicates` over 10,000 images.
            With --photos, also times the dominant-color extraction that
            classification adds, on up to 100 real photos. With --postgres the
            library is then copied into that (empty) PostgreSQL database and the
            same searches are timed there. Build with `swift build -c release` first.

            Examples:
              classify-bench similar --images 100000 --db /tmp/bench.sqlite
              classify-bench similar --postgres "$(Scripts/dev-postgres start)"
            """)

    @Option(help: "Images in the synthetic index.") var images = 100_000
    @Option(help: "Images grouped by the duplicates measurement.") var duplicateImages = 10_000
    @Option(help: "Searches timed.") var searches = 30
    @Option(help: ArgumentHelp("Where to build the index (replaced; default: a temporary file, removed).", valueName: "path"))
    var db: String?
    @Option(help: ArgumentHelp("Also time dominant colors on the photos of this folder.", valueName: "dir")) var photos: String?
    @Option(help: ArgumentHelp("Also copy the library into this empty PostgreSQL database and time the searches there.", valueName: "url"))
    var postgres: String?
    @OptionGroup var modelOptions: BenchModelOptions

    func validate() throws {
        guard images >= 100, duplicateImages >= 1, searches >= 1 else { throw ValidationError("--images >= 100, --duplicate-images and --searches >= 1") }
    }

    func run() async throws {
        let target = try postgres.map { try PostgresDescriptor(parsing: $0) }
        let url = db.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appending(path: "similar-bench-\(UUID().uuidString).sqlite")
        defer {
            if db == nil { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        }
        let benchmark = SimilarityBenchmark(
            databaseURL: url, imageCount: images, duplicateImageCount: min(duplicateImages, images), searches: searches)
        let result = try benchmark.run { BenchOutput.progress($0) }
        BenchOutput.figures(result.report)
        if let target {
            let (all, folder) = try await benchmark.runOnPostgres(target) { BenchOutput.progress($0) }
            BenchOutput.figures("PostgreSQL:")
            BenchOutput.figures(String(format: "similar, all images           %5d %9.2f %9.2f %9.2f   p95 <= 150 ms %@", all.count, all.p50, all.p95, all.max, all.p95 <= 150 ? "ok" : "MISSED"))
            BenchOutput.figures(String(format: "similar, one folder (10k)     %5d %9.2f %9.2f %9.2f", folder.count, folder.p50, folder.p95, folder.max))
        }
        if let photos { try measureColors(URL(fileURLWithPath: photos, isDirectory: true)) }
    }

    /// Median time of `DominantColors.extract` against the median time of classifying the same decoded image.
    private func measureColors(_ folder: URL) throws {
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
            .filter { ["jpg", "jpeg", "png"].contains(($0 as NSString).pathExtension.lowercased()) }.prefix(100)
        var colorTimes: [Double] = [], classifyTimes: [Double] = [], counts: [Int] = []
        for file in files {
            guard let image = try? classifier.decode(contentsOf: folder.appending(path: file)) else { continue }
            var start = DispatchTime.now().uptimeNanoseconds
            let colors = DominantColors.extract(from: image)
            colorTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            counts.append(colors.count)
            start = DispatchTime.now().uptimeNanoseconds
            _ = classifier.classify(image)
            classifyTimes.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        guard !colorTimes.isEmpty else { return }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        BenchOutput.figures(String(
            format: "dominant colors on %d photos: median %.3f ms (%.1f%% of classifying the decoded image, median %.1f ms, colors included); %.1f colors per photo",
            colorTimes.count, median(colorTimes), 100 * median(colorTimes) / median(classifyTimes), median(classifyTimes),
            Double(counts.reduce(0, +)) / Double(counts.count)))
    }
}
