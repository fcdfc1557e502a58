import ArgumentParser
import ClassifyBenchmarks
import Foundation
import TagIndex

/// `classify-bench writers`: concurrent index writers on PostgreSQL, without classifying.
///
/// Usage: `classify-bench writers --postgres "$(Scripts/dev-postgres start)" --writers 1,2,4`
struct WritersBenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "writers",
        abstract: "Measure concurrent index writers on a PostgreSQL database.",
        discussion: """
            Runs one round per writer count: queues synthetic files under a new folder,
            then that many workers (each its own connection) claim, look up and write
            them as `index` workers do after classifying, with synthetic results (no
            files are read, nothing is classified). Prints images/s per round and the
            scaling against one writer. The rows stay in the database (use an empty
            database made for the benchmark). Build with `swift build -c release` first.

            Examples:
              classify-bench writers --postgres "$(Scripts/dev-postgres start)"
              classify-bench writers --postgres postgres://me@db/bench --images 50000 --writers 4,8
            """)

    @Option(help: ArgumentHelp("The PostgreSQL database to write into.", valueName: "url"))
    var postgres: String
    @Option(help: "Files written per round.") var images = 20_000
    @Option(help: ArgumentHelp("Writer counts, one round each.", valueName: "n,n,..."))
    var writers = "1,2,3,4"
    @Option(help: "Files a worker claims and writes per transaction (index: 32).") var batch = 32

    func validate() throws {
        guard images >= 100 else { throw ValidationError("--images takes 100 or more") }
        guard (1...256).contains(batch) else { throw ValidationError("--batch takes 1 to 256") }
        guard let counts = writerCounts, !counts.isEmpty else {
            throw ValidationError("--writers takes a comma-separated list of counts from 1 to 64, like 1,2,4")
        }
        _ = counts
    }

    private var writerCounts: [Int]? {
        let counts = writers.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard counts.allSatisfy({ $0.map { (1...64).contains($0) } ?? false }) else { return nil }
        return counts.compactMap { $0 }
    }

    func run() async throws {
        var configuration = PostgresWriteBenchmark.Configuration()
        configuration.imagesPerRound = images
        configuration.writers = writerCounts ?? [1]
        configuration.batchSize = batch
        let benchmark = PostgresWriteBenchmark(target: try PostgresDescriptor(parsing: postgres), configuration: configuration)
        let rounds = try await benchmark.run { BenchOutput.progress($0) }
        BenchOutput.figures(PostgresWriteBenchmark.report(rounds))
    }
}
