import ArgumentParser
import ClassifyBenchmarks
import Foundation
import TagIndex

/// `classify-bench index`: the index benchmark's synthetic library, built and searched.
struct IndexBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Measure searches on a synthetic labelled index.",
        discussion: """
            Builds the index benchmark's synthetic library (images with leaf and
            parent labels of Zipf-like popularity, 1,500 labels) and times single-
            label searches, boolean searches and facets. With --db the index is
            kept, e.g. to load-test `serve` (Scripts/gallery-load does). With
            --postgres the same library is then copied into that (empty) PostgreSQL
            database and the same searches are timed there, side by side. Build
            with `swift build -c release` first.

            Examples:
              classify-bench index --images 100000 --db /tmp/library.sqlite
              classify-bench index --postgres "$(Scripts/dev-postgres start)"
            """)

    @Option(help: "Images in the synthetic index.") var images = 1_000_000
    @Option(help: ArgumentHelp("Where to build the index (replaced; default: a temporary file, removed).", valueName: "path"))
    var db: String?
    @Option(help: ArgumentHelp("Also copy the library into this empty PostgreSQL database and search it there.", valueName: "url"))
    var postgres: String?
    @Flag(help: "The --postgres database already holds this library (an earlier run's copy): search it without copying.")
    var reusePostgres = false

    func validate() throws {
        guard images >= 1000 else { throw ValidationError("--images takes 1000 or more") }
        if reusePostgres && postgres == nil { throw ValidationError("--reuse-postgres needs --postgres") }
    }

    func run() async throws {
        let target = try postgres.map { try PostgresDescriptor(parsing: $0) }
        let url = db.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appending(path: "index-bench-\(UUID().uuidString).sqlite")
        for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        defer {
            if db == nil { for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        }
        var configuration = TagIndexBenchmark.Configuration()
        configuration.imageCount = images
        configuration.facetResultSize = min(configuration.facetResultSize, images / 8)
        let benchmark = TagIndexBenchmark(databaseURL: url, configuration: configuration)
        let result = try await benchmark.run { BenchOutput.progress($0) }
        BenchOutput.figures(result.report)
        if let target {
            let onPostgres = try await benchmark.runOnPostgres(target, copying: !reusePostgres) { BenchOutput.progress($0) }
            BenchOutput.figures("")
            BenchOutput.figures(onPostgres.report)
        }
    }
}
