import ArgumentParser
import Classify
import Foundation
import TagIndex

/// `classify-tool similar PATH` / `similar --image FILE`: the indexed images that look most alike.
struct SimilarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "similar",
        abstract: "Find indexed images that look like an image.",
        discussion: """
            Ranks indexed images by the cosine similarity of their feature prints
            to the given image (score 0..1; copies of a photo usually score above
            0.85). PATH must be indexed; --image classifies any file first.
            --query narrows the candidates with the search language (labels and
            filters), e.g. --query 'dog:0.5 under:/photos/2024'. Prints
            "score<TAB>path" per line; --format json for details.

            Examples:
              classify-tool similar ~/Pictures/2024/beach.jpg --limit 10
              classify-tool similar --image ~/Downloads/photo.jpg --min-score 0.8
              classify-tool similar ~/Pictures/dog.jpg --query dog:0.5
            """)

    @Argument(help: "An indexed image.") var path: String?
    @Option(help: ArgumentHelp("Any image file, classified on the fly.", valueName: "file")) var image: String?
    @Option(help: "Only images matching this search (labels and filters).") var query: String?
    @Option(help: ArgumentHelp("Only files under this folder (repeatable).", valueName: "path")) var under: [String] = []
    @Option(help: ArgumentHelp("Only these file types, e.g. jpg (repeatable).", valueName: "ext")) var type: [String] = []
    @Option(help: "Only results scoring at least this (0..1).") var minScore = 0.0
    @Option(help: "Results per page.") var limit = 20
    @Option(help: "Page number, from 1.") var page = 1
    @Option(help: "Output format: paths or json.") var format: SearchCommand.SearchFormat = .paths
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        guard (path == nil) != (image == nil) else { throw ValidationError("give an indexed PATH or --image FILE (one of them)") }
        guard (1...1000).contains(limit), page >= 1 else { throw ValidationError("--limit takes 1...1000 and --page starts at 1") }
        guard (0...1).contains(minScore) else { throw ValidationError("--min-score takes 0...1") }
    }

    func run() async throws {
        verbosity.apply()
        var parsed = try Query(commandLine: query, under: under)
        parsed.filters.fileTypes += type.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")) }
        parsed.limit = limit
        parsed.page = page
        let index = try await database.openBackend()
        defer { Task { await index.close() } }
        let result: SearchPage
        do {
            parsed.applyDefaultCalibration(indexHasCalibration: try await index.hasCalibration(), onlyWithLabelTerms: true)
            if let path {
                // A named library's path (photos:/2024/a.jpg) is kept as written.
                let stored = LibraryRoot.isLibraryPath(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
                result = try await index.similar(toPath: stored, query: parsed, minimumScore: minScore)
            } else {
                result = try await index.similar(to: try classifyImage(), query: parsed, minimumScore: minScore, excludingPath: nil)
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        try printPage(result)
    }

    /// The feature print of `--image`, classified now.
    private func classifyImage() throws -> [Float] {
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        do { return try classifier.classify(contentsOf: URL(fileURLWithPath: image!)).featurePrint.values } catch {
            Terminal.error("error: \(image!): \(error)")
            throw ExitCode(1)
        }
    }

    private func printPage(_ result: SearchPage) throws {
        switch format {
        case .paths:
            for hit in result.hits { Terminal.out(String(format: "%.4f\t", hit.score) + hit.path) }
            Terminal.note("\(result.totalCount) result\(result.totalCount == 1 ? "" : "s")\(result.pageCount > 1 ? ", page \(result.page) of \(result.pageCount)" : "")")
        case .json:
            try Terminal.json(JSONOutput.encode(SimilarOutput(page: result)))
        }
    }
}
