import ArgumentParser
import ClassifyIndexing
import Foundation
import TagIndex

/// `classify-tool show PATH`: what the index knows about one image.
///
/// Usage: `classify-tool show ~/Pictures/beach.jpg --format json`
struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show what the index knows about one image.",
        discussion: """
            Prints the size, dates, model, content hash and labels (or why the file
            failed). Labels you corrected with `classify-tool tag` are marked. In a
            PostgreSQL index, name a file of a named library by its library path
            (photos:/2024/beach.jpg).

            Examples:
              classify-tool show ~/Pictures/2024/beach.jpg
              classify-tool show ~/Pictures/2024/beach.jpg --format json --top 5
            """)

    @Argument(help: "An indexed file.") var path: String
    @Option(help: "Output format.") var format: DetailFormat = .table
    @Option(help: "Show at most this many labels.") var top = 15
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    func run() async throws {
        verbosity.apply()
        // A named library's path (photos:/2024/a.jpg) is kept as written.
        let stored = LibraryRoot.isLibraryPath(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        let details: (IndexedImage?, [ImageLabel], [IndexedFace]?, [LabelCorrection], IndexedMetadata?)
        do {
            details = (
                try await index.image(atPath: stored), try await index.labels(forPath: stored), try await index.faces(forPath: stored),
                try await index.corrections(forPath: stored), try await index.metadata(forPath: stored))
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        guard let image = details.0 else {
            Terminal.error("error: \(stored) is not in the index; index its folder with: classify-tool index FOLDER")
            throw ExitCode(ToolExit.failure)
        }
        try render(image, labels: details.1, faces: details.2, corrections: details.3, metadata: details.4)
    }

    /// The details of one image, as a table or JSON (the same from either backend).
    private func render(
        _ image: IndexedImage, labels: [ImageLabel], faces: [IndexedFace]?, corrections: [LabelCorrection], metadata: IndexedMetadata?
    ) throws {
        let added = Dictionary(corrections.filter { $0.kind == .added }.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let removed = corrections.filter { $0.kind == .removed }
        let stamp = ISO8601DateFormatter()
        let fields = PhotoMetadataReader.output(metadata, modified: image.failureStage == nil ? image.modificationTime : nil)
        if format == .json {
            var output = ImageOutput(image: image, labels: labels, top: top, corrections: corrections, faces: faces)
            output.setMetadata(fields)
            try Terminal.json(JSONOutput.encode(output))
            return
        }
        Terminal.out(image.path)
        if let width = image.width, let height = image.height { Terminal.out("  size      \(width)x\(height), \(ByteCountFormatter.string(fromByteCount: image.size, countStyle: .file))") }
        Terminal.out("  modified  \(stamp.string(from: image.modificationTime))")
        Terminal.out("  indexed   \(stamp.string(from: image.indexedAt)) with \(image.model?.description ?? "unknown model")")
        if let hash = image.contentHash { Terminal.out("  content   \(hash)") }
        if let taken = fields.taken {
            Terminal.out("  taken     \(taken)" + (fields.takenFrom == "file" ? " (the file's modification time: the photo states no date)" : ""))
        }
        if let camera = fields.camera {
            Terminal.out("  camera    " + [camera.displayName, camera.lens].compactMap { $0 }.joined(separator: ", "))
        }
        if let place = fields.place {
            Terminal.out("  place     " + place.displayName)
        }
        if let gps = fields.gps {
            Terminal.out(String(format: "  position  %.5f, %.5f", gps.latitude, gps.longitude) + (gps.altitude.map { String(format: ", %.0f m", $0) } ?? ""))
        }
        if let stage = image.failureStage {
            Terminal.out("  FAILED    \(stage): \(image.failureReason ?? "")")
            return
        }
        Terminal.out("  labels")
        for label in labels.prefix(top) {
            var mark = ""
            if let correction = added[label.identifier], label.confidence == 1 {
                mark = correction.isUserLabel ? "  (corrected: your label)" : "  (corrected: added)"
            }
            Terminal.out(String(format: "    %.3f  %@", label.confidence ?? label.subtreeConfidence, label.identifier as NSString) + mark)
        }
        if labels.count > top { Terminal.out("    ... \(labels.count - top) more (--top N)") }
        for correction in removed {
            Terminal.out("  removed   \(correction.identifier) (corrected: with the labels below it)")
        }
        if let faces {
            Terminal.out("  faces     \(faces.count)")
            for (number, face) in faces.enumerated() {
                let person = face.person.map { "  person \($0.id)" + ($0.name.map { " \($0)" } ?? "") } ?? ""
                Terminal.out(String(format: "    %d  %.3f  x %.0f  y %.0f  %.0fx%.0f", number + 1, face.confidence, face.x, face.y, face.width, face.height) + person)
            }
        }
    }
}
