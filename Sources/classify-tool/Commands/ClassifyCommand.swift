import ArgumentParser
import Classify
import ClassifySupport
import Foundation

/// `classify-tool classify PATH...`: print the labels of images.
struct ClassifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "classify",
        abstract: "Print the labels of images (files or folders, recursively).",
        discussion: """
            Observations cover the whole taxonomy: the network's classes
            (golden_retriever) and their groups (dog, domestic_animal). A file that
            cannot be classified is reported with the stage that failed and why; the
            others still run. Exit status: 0 all classified, 1 error, 2 some files
            failed.

            Examples:
              classify-tool classify photo.jpg
              classify-tool classify ~/Pictures --format jsonl --filter high-precision
              classify-tool classify scans/ --format csv --top 3 > labels.csv
            """)

    @Argument(help: "Image files or folders.") var paths: [String]
    @Option(help: "Output format.") var format: OutputFormat = .table
    @Option(help: "Print at most this many labels per image.") var top = 5
    @Option(help: "Keep labels by their calibrated per-label thresholds.") var filter: FilterChoice = .none
    @Option(help: "Only labels with at least this confidence.") var minConfidence: Float = 0
    @Option(help: "Images classified at once (default: number of cores).") var jobs: Int?
    @Flag(help: "Also look at hidden files and folders.") var includeHidden = false
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        if let jobs, jobs < 1 { throw ValidationError("--jobs takes 1 or more") }
        guard (0...1).contains(minConfidence) else { throw ValidationError("--min-confidence takes a value from 0 to 1") }
    }

    func run() async throws {
        verbosity.apply()
        let classifier = ImageClassifier(model: try modelOptions.loadModel())
        let renderer = ResultRenderer(format: format, top: top > 0 ? top : nil, filter: filter.observationFilter, minimumConfidence: minConfidence)
        if filter != .none && classifier.model.labelSet.calibration == nil {
            Terminal.error("warning: the model has no calibration.json, so --filter \(filter.rawValue) keeps no label; run classify-tool calibrate first")
        }
        if let header = renderer.header { Terminal.out(header) }
        var failures = 0, count = 0
        var walker = ImageFileWalker(paths: paths, includeHidden: includeHidden)
        walker.reportsSkipped = true
        // Files that are not images are counted (and listed with --verbose) as the walk meets them.
        let skipped = Locked(0)
        let entries = walker.lazy.filter { entry in
            guard case .skipped(let path) = entry else { return true }
            skipped.withLock { $0 += 1 }
            Terminal.debug("skipped (not an image): \(path)")
            return false
        }
        let pipeline = ClassificationPipeline(classifier: classifier, jobs: jobs)
        await pipeline.run(entries, work: { entry -> Result<ClassificationResult, ClassificationError> in
            switch entry {
            case .file(let file): return Result { () throws(ClassificationError) in try classifier.classify(contentsOf: URL(fileURLWithPath: file.path)) }
            case .problem(_, let reason): return .failure(ClassificationError(stage: .read, reason: reason))
            // Filtered out above; never reaches the pipeline.
            case .skipped: return .failure(ClassificationError(stage: .read, reason: "not an image"))
            }
        }, consume: { entry, result in
            let path: String
            switch entry {
            case .file(let file): path = file.path
            case .problem(let problemPath, _), .skipped(let problemPath): path = problemPath
            }
            if case .failure = result { failures += 1 }
            Terminal.out(renderer.render(path: path, result: result, isFirst: count == 0))
            count += 1
        })
        if let footer = renderer.footer { Terminal.out(footer) }
        try Terminal.finishFileRun(count: count, failures: failures, skipped: skipped.withLock { $0 }, paths: paths)
    }
}
