import ArgumentParser
import Foundation
import TagIndex
import TagIndexPostgres

/// `classify-tool stats`: what the index holds.
///
/// Usage: `classify-tool stats --json`
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many images, labels and failures the index holds.",
        discussion: """
            Prints the database location and size, images classified and failed,
            labels in the taxonomy and in use, faces found (and in how many images),
            and the models that produced the index.

            Examples:
              classify-tool stats
              classify-tool stats --db photos.sqlite --json
            """)

    @Flag(help: "Print one JSON object.") var json = false
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        verbosity.apply()
        let statistics: IndexStatistics, models: [ModelUsage], location: String, bytes: Int64, labelsInUse: Int
        if let descriptor = database.postgres {
            do {
                let index = try await PostgresIndex.open(descriptor)
                defer { Task { await index.close() } }
                statistics = try await index.statistics()
                models = try await index.modelUsage()
                bytes = try await index.databaseBytes()
                labelsInUse = try await index.labelsInUseCount()
                location = descriptor.description
            } catch {
                Terminal.error("error: \(error)")
                throw ExitCode(ToolExit.failure)
            }
        } else {
            let index = try database.open(create: false)
            statistics = try index.statistics()
            models = try index.modelUsage()
            location = database.location.path
            var fileBytes: Int64 = 0
            for suffix in ["", "-wal", "-shm"] {
                fileBytes += ((try? FileManager.default.attributesOfItem(atPath: location + suffix))?[.size] as? NSNumber)?.int64Value ?? 0
            }
            bytes = fileBytes
            labelsInUse = try index.labelImageCounts().count
        }
        if json {
            let object: [String: Any] = [
                "database": location, "databaseBytes": bytes, "images": statistics.imageCount, "failed": statistics.failedCount,
                "labels": statistics.labelCount, "labelsInUse": labelsInUse, "observations": statistics.observationCount,
                "models": models.map { ["model": $0.model.description, "images": $0.imageCount] },
                "faces": ["imagesScanned": statistics.faceScannedCount, "imagesWithFaces": statistics.imagesWithFacesCount,
                          "faces": statistics.faceCount],
            ]
            try Terminal.json(JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            return
        }
        Terminal.out("database      \(location) (\(ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)))")
        Terminal.out("images        \(statistics.imageCount) classified, \(statistics.failedCount) failed")
        Terminal.out("labels        \(statistics.labelCount) in the taxonomy, \(labelsInUse) seen in images")
        Terminal.out("observations  \(statistics.observationCount)")
        if statistics.faceScannedCount > 0 {
            Terminal.out("faces         \(statistics.faceCount) in \(statistics.imagesWithFacesCount) images (\(statistics.faceScannedCount) looked at)")
        } else {
            Terminal.out("faces         not looked for in any image")
        }
        for usage in models { Terminal.out("model         \(usage.model) (\(usage.imageCount) files)") }
    }
}
