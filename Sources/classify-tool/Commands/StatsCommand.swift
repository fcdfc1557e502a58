import ArgumentParser
import Foundation
import TagIndex

/// `classify-tool stats`: what the index holds.
///
/// Usage: `classify-tool stats --json`
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Show how many images, labels and failures the index holds.",
        discussion: """
            Prints the database location and size, images classified and failed,
            labels in the taxonomy and in use, faces found (in how many images, and how
            many were described for recognition),
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
        let location = database.displayLocation
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        let stats: StatsOutput
        do {
            stats = try await StatsOutput(index: index, location: location)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        if json {
            try Terminal.json(JSONOutput.encode(stats))
            return
        }
        Terminal.out("database      \(location) (\(ByteCountFormatter.string(fromByteCount: stats.databaseBytes, countStyle: .file)))")
        Terminal.out("images        \(stats.images) classified, \(stats.failed) failed")
        Terminal.out("labels        \(stats.labels) in the taxonomy, \(stats.labelsInUse) seen in images")
        Terminal.out("observations  \(stats.observations)")
        if stats.faces.imagesScanned > 0 {
            Terminal.out(
                "faces         \(stats.faces.faces) in \(stats.faces.imagesWithFaces) images (\(stats.faces.imagesScanned) looked at, "
                    + "\(stats.faces.described) described for recognition)")
        } else {
            Terminal.out("faces         not looked for in any image")
        }
        for usage in stats.models { Terminal.out("model         \(usage.model) (\(usage.images) files)") }
    }
}
