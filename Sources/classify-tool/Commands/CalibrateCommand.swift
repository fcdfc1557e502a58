import ArgumentParser
import Classify
import Foundation

/// `classify-tool calibrate DIR`: build per-label precision/recall curves from labelled images.
struct CalibrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Build precision/recall curves for the --filter options from labelled images.",
        discussion: """
            The true label of an image comes from its sub-folder name or the start of
            its file name (a WordNet id or a label identifier). An image is a positive
            for its label and every ancestor. Labels with at least --min-positives
            positives get their own curve; the others use the pooled curve of leaves or
            of parents. Writes calibration.json into the model directory unless
            --output says otherwise (calibration-int8.json with --precision int8: the
            curves of the int8 network, which the int8 filters use).

            With --quantization, measures instead the range of every activation the
            int8 ops read (running the fp32 network on the images) and writes
            quantization.json, which --precision int8 needs.

            Example:
              classify-tool calibrate ~/labelled-photos --output /tmp/calibration.json
            """)

    @Argument(help: "Folder of labelled images.") var folder: String
    @Option(help: "Where to write the calibration (default: calibration.json, or calibration-int8.json, in the model directory).") var output: String?
    @Option(help: "Positives a label needs for its own curve.") var minPositives = CalibrationBuilder.defaultMinimumPositives
    @Option(help: "Images classified at once (default: number of cores).") var jobs: Int?
    @Option(help: "Text recorded in the file as the data's description (default: the folder name).") var describe: String?
    @Flag(help: "Also print how filters at other operating points behave on the same images.") var sweep = false
    @Flag(help: "Write the int8 activation ranges (quantization.json) instead of the curves.") var quantization = false
    @Option(help: "With --quantization: SmoothQuant's alpha for the int8 ops' inputs (0 to 1; -1: no smoothing).")
    var smoothing: Float = ActivationRangeRecorder.defaultSmoothing
    @OptionGroup var modelOptions: ModelOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        guard smoothing == -1 || (0...1).contains(smoothing) else { throw ValidationError("--smoothing takes 0 to 1, or -1 for none") }
    }

    func run() async throws {
        verbosity.apply()
        let directory = try modelOptions.modelDirectory()
        let model = try ImageClassifierModel(contentsOf: directory, precision: quantization ? .fp32 : modelOptions.precision ?? .fp32)
        let classifier = ImageClassifier(model: model)
        let set = try LabelledImageSet(root: URL(fileURLWithPath: folder), taxonomy: model.labelSet.taxonomy)
        guard !set.images.isEmpty else {
            Terminal.error("error: no labelled images in \(folder)")
            throw ExitCode(ToolExit.failure)
        }
        if quantization {
            try writeQuantization(model: model, classifier: classifier, images: set.images, directory: directory)
            return
        }
        var builder = CalibrationBuilder(taxonomy: model.labelSet.taxonomy, minimumPositives: minPositives)
        var samples: [(probabilities: [Float], trueLabel: Int)] = []
        var failed = 0
        await ClassificationPipeline(classifier: classifier, jobs: jobs).run(set.images, work: { image in
            Result { () throws(ClassificationError) in try classifier.infer(classifier.decode(contentsOf: image.url)).probabilities }
        }, consume: { image, result in
            switch result {
            case .success(let probabilities):
                builder.add(probabilities: probabilities, trueLabel: image.labelIndex)
                samples.append((probabilities, image.labelIndex))
            case .failure(let error):
                failed += 1
                Terminal.note("\(image.url.path): \(error)")
            }
        })
        let source = CalibrationFile.Source(
            description: describe ?? URL(fileURLWithPath: folder).lastPathComponent, imageCount: builder.imageCount,
            failedCount: failed, createdBy: "classify-tool calibrate \(ClassifyVersion.current)")
        let calibration = builder.build(model: model.description.name, modelVersion: model.description.modelVersion, source: source)
        let destination = output.map { URL(fileURLWithPath: $0) } ?? directory.appending(path: CalibrationFile.fileName(for: model.precision))
        try calibration.write(to: destination)

        let labelSet = LabelSet(taxonomy: model.labelSet.taxonomy, calibration: calibration)
        let ownLeaves = calibration.labels.keys.filter { model.labelSet.taxonomy.label($0)?.isLeaf == true }.count
        Terminal.out("calibrated on \(builder.imageCount) images (\(failed) failed, \(set.unlabelled.count) unlabelled skipped); wrote \(destination.path)")
        Terminal.out("\(calibration.labels.count) labels have their own curve (\(ownLeaves) leaves, \(calibration.labels.count - ownLeaves) parents, at least \(minPositives) positives); the other \(labelSet.taxonomy.labels.count - calibration.labels.count) use a pooled curve")
        var filters: [(ObservationFilter, String)] = [(.highRecall, "high-recall"), (.highPrecision, "high-precision")]
        if sweep {
            for recall: Float in [0.8, 0.85, 0.9, 0.95, 0.97, 0.99] { filters.append((.minimumPrecision(0.1, forRecall: recall), "p>=0.1@r\(recall)")) }
            for precision: Float in [0.8, 0.85, 0.9, 0.95, 0.97, 0.99] { filters.append((.minimumRecall(0.01, forPrecision: precision), "r>=0.01@p\(precision)")) }
        }
        for (filter, name) in filters {
            let report = FilterEvaluation.measure(filter, name: name, samples: samples, labelSet: labelSet)
            Terminal.out(String(format: "%-15@ keeps %.2f labels per photo, precision %.3f, recall %.3f, %d photos with no label",
                                name as NSString, report.meanLabelsKept, report.meanPrecision, report.meanRecall, report.photosWithNoLabel))
        }
    }

    /// Records the activation ranges on every image, one at a time in name order (the table is
    /// the same whatever the number of cores), and writes quantization.json.
    private func writeQuantization(model: ImageClassifierModel, classifier: ImageClassifier, images: [LabelledImageSet.Image], directory: URL) throws {
        var recorder = try ActivationRangeRecorder(model: model)
        var failed = 0
        for image in images.sorted(by: { $0.url.path < $1.url.path }) {
            do { recorder.add(try classifier.decode(contentsOf: image.url)) } catch {
                failed += 1
                Terminal.note("\(image.url.path): \(error)")
            }
        }
        let source = CalibrationFile.Source(
            description: describe ?? URL(fileURLWithPath: folder).lastPathComponent, imageCount: recorder.imageCount,
            failedCount: failed, createdBy: "classify-tool calibrate --quantization \(ClassifyVersion.current)")
        let table = recorder.table(source: source, smoothing: smoothing < 0 ? nil : smoothing)
        let destination = output.map { URL(fileURLWithPath: $0) } ?? directory.appending(path: QuantizationTable.fileName)
        try table.write(to: destination)
        Terminal.out("measured \(table.activations.count) activation ranges on \(recorder.imageCount) images (\(failed) failed); wrote \(destination.path)")
    }
}
