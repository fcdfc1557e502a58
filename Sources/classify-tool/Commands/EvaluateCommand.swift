import ArgumentParser
import Classify
import Foundation
import TagIndex

/// `classify-tool evaluate DIR`: top-1 / top-5 accuracy on labelled images.
struct EvaluateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "evaluate",
        abstract: "Measure top-1 and top-5 accuracy on labelled images.",
        discussion: """
            The true class of an image comes from its sub-folder name or the start of
            its file name: a WordNet id (n02099601_12.jpg) or a label identifier
            (golden_retriever/12.jpg).

            Example:
              classify-tool evaluate ~/labelled-photos --compare-full-decode
              classify-tool evaluate ~/labelled-photos --precision int8 --compare-fp32
            """)

    @Argument(help: "Folder of labelled images.") var folder: String
    @Flag(help: "Also decode every JPEG at full size and report the difference DCT scaling makes.") var compareFullDecode = false
    @Flag(help: "Also classify at fp32 and report how often the top-1 label agrees (with --precision int8).") var compareFp32 = false
    @Flag(help: "Print one JSON object.") var json = false
    @Option(help: "Images classified at once (default: number of cores).") var jobs: Int?
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    struct Accuracy: Codable {
        var images = 0, failed = 0, top1 = 0, top5 = 0
        /// Top-1 leaf label per image path.
        var predictions: [String: String] = [:]
        var top1Rate: Double { images > 0 ? Double(top1) / Double(images) : 0 }
        var top5Rate: Double { images > 0 ? Double(top5) / Double(images) : 0 }
    }

    func run() async throws {
        verbosity.apply()
        let model = try modelOptions.loadModel()
        let set = try LabelledImageSet(root: URL(fileURLWithPath: folder), taxonomy: model.labelSet.taxonomy)
        let leaves = set.images.filter { model.labelSet.taxonomy.labels[$0.labelIndex].isLeaf }
        guard !leaves.isEmpty else {
            Terminal.error("error: no labelled images in \(folder) (names must start with a WordNet id or a class identifier)")
            throw ExitCode(ToolExit.failure)
        }
        var reduced = ImageClassifier(model: model)
        reduced.decodesAtReducedSize = true
        let scaled = try await measure(leaves, classifier: reduced)
        var fp32: Accuracy?
        if compareFp32 {
            var classifier = ImageClassifier(model: try ImageClassifierModel.shared(directory: model.directory, precision: .fp32))
            classifier.decodesAtReducedSize = true
            fp32 = try await measure(leaves, classifier: classifier)
        }
        let agreement = fp32.map { fp32 in
            Double(scaled.predictions.filter { fp32.predictions[$0.key] == $0.value }.count) / Double(max(scaled.predictions.count, 1))
        }
        var full: Accuracy?
        if compareFullDecode {
            var classifier = ImageClassifier(model: model)
            classifier.decodesAtReducedSize = false
            full = try await measure(leaves, classifier: classifier)
        }
        if json {
            var output = AccuracyOutput(
                images: scaled.images, failed: scaled.failed, top1: scaled.top1Rate, top5: scaled.top5Rate, precision: model.precision.rawValue)
            output.fullDecode = full.map { .init(top1: $0.top1Rate, top5: $0.top5Rate) }
            if let fp32, let agreement { output.fp32 = .init(top1: fp32.top1Rate, top5: fp32.top5Rate, top1Agreement: agreement) }
            Terminal.out(String(decoding: try JSONOutput.encode(output), as: UTF8.self))
            return
        }
        Terminal.out(String(format: "%d images (%d failed, %d unlabelled skipped): top-1 %.3f, top-5 %.3f (%@, JPEG decoded at reduced size)",
                            scaled.images, scaled.failed, set.unlabelled.count, scaled.top1Rate, scaled.top5Rate, model.precision.rawValue as NSString))
        if let fp32, let agreement {
            Terminal.out(String(format: "fp32: top-1 %.3f, top-5 %.3f; top-1 label the same as fp32's on %.1f%% of the images",
                                fp32.top1Rate, fp32.top5Rate, agreement * 100))
        }
        if let full {
            Terminal.out(String(format: "full-size decoding: top-1 %.3f, top-5 %.3f; DCT scaling changes top-1 by %+.1f points",
                                full.top1Rate, full.top5Rate, (scaled.top1Rate - full.top1Rate) * 100))
        }
    }

    private func measure(_ images: [LabelledImageSet.Image], classifier: ImageClassifier) async throws -> Accuracy {
        var accuracy = Accuracy()
        let taxonomy = classifier.model.labelSet.taxonomy
        await ClassificationPipeline(classifier: classifier, jobs: jobs).run(images, ordered: false, work: { image in
            Result { () throws(ClassificationError) in try classifier.classify(contentsOf: image.url) }
        }, consume: { image, result in
            accuracy.images += 1
            guard case .success(let result) = result else {
                accuracy.failed += 1
                return
            }
            let truth = taxonomy.labels[image.labelIndex].identifier
            let ranked = result.observations.filter(\.isLeaf).prefix(5).map(\.identifier)
            if let first = ranked.first { accuracy.predictions[image.url.path] = first }
            if ranked.first == truth { accuracy.top1 += 1 }
            if ranked.contains(truth) { accuracy.top5 += 1 }
        })
        return accuracy
    }
}

/// `evaluate --json`: accuracy on a labelled folder, and beside it what full decoding or fp32 gives.
struct AccuracyOutput: Codable, Sendable {
    var images: Int
    var failed: Int
    var top1: Double
    var top5: Double
    var precision: String
    var fullDecode: Rates?
    var fp32: Rates?

    /// Top-1 and top-5 rates (and, against fp32, how often top-1 agrees).
    struct Rates: Codable, Sendable {
        var top1: Double
        var top5: Double
        var top1Agreement: Double?
    }
}
