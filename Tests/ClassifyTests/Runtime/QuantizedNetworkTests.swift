import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// The int8 network as a whole: the quantizer turns the right ops to int8, the int8 network
/// follows the fp32 one on real photos and on every kernel path, and the table file is checked
/// on load. The kernels themselves are tested bit for bit in `QuantizedKernelTests`.
@Suite(.serialized)
struct QuantizedNetworkTests {
    static let photos = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "Fixtures/photos")

    static let tableURL = ShippedModel.directory.appending(path: QuantizationTable.fileName)

    static let loadedInt8Model: Result<ImageClassifierModel, ModelLoadingError> = {
        do throws(ModelLoadingError) { return .success(try ImageClassifierModel(contentsOf: ShippedModel.directory, precision: .int8)) } catch {
            return .failure(error)
        }
    }()

    /// The shipped model at int8; skips the test when the model directory has no quantization.json
    /// (Scripts/calibrate-int8 writes it), fails when it has one that does not load.
    static func int8Model() throws -> ImageClassifierModel {
        guard FileManager.default.fileExists(atPath: tableURL.path) else {
            try Test.cancel("no \(QuantizationTable.fileName) in Models/efficientnet-lite0 (Scripts/calibrate-int8 writes it): the shipped int8 network is not tested")
        }
        return try loadedInt8Model.get()
    }

    static func probabilities(_ model: ImageClassifierModel, photo: String) throws -> [Float] {
        let classifier = ImageClassifier(model: model)
        return classifier.infer(try classifier.decode(contentsOf: photos.appending(path: photo))).probabilities
    }

    /// Every pointwise convolution with at least `minimumInputChannels` inputs and the classifier
    /// run in int8, nothing else does; the other ops are the fp32 graph's (a depthwise convolution
    /// that writes an int8 projection's input wraps the same convolution).
    @Test func quantizerReplacesPointwiseConvolutionsAndTheClassifier() throws {
        let fp32 = ShippedModel.model.graph.operations, int8 = try Self.int8Model().graph.operations
        #expect(fp32.count == int8.count)
        var quantized = 0
        for (before, after) in zip(fp32, int8) {
            #expect(before.name == after.name && before.inputs == after.inputs && before.output == after.output)
            if GraphQuantizer.isQuantizable(before) {
                #expect(after is QuantizedPointwiseConvOperation || after is QuantizedFullyConnectedOperation, "\(before.name) stayed fp32")
                quantized += 1
            } else if let quantizing = after as? QuantizingDepthwiseOperation {
                #expect(before is Conv2DOperation && quantizing.depthwise.strategy == .depthwise, "\(before.name) changed")
            } else {
                #expect(type(of: before) == type(of: after), "\(before.name) changed")
            }
        }
        // Lite0: 16 blocks' projections, 14 expansions with 32 or more inputs, the head, the classifier.
        #expect(quantized >= 30)
        #expect(int8.contains { $0 is QuantizedFullyConnectedOperation })
    }

    /// On the three fixture photos the int8 network gives the fp32 top-1 label, and its
    /// probabilities stay within 0.05 of fp32's. Where fp32's best labels are tied within that
    /// (the cat: tiger cat 0.371, Egyptian cat 0.368), int8's top-1 must be one of them.
    @Test(arguments: ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"])
    func int8FollowsFP32OnRealPhotos(photo: String) throws {
        let fp32 = try Self.probabilities(ShippedModel.model, photo: photo)
        let int8 = try Self.probabilities(Self.int8Model(), photo: photo)
        let top = { (p: [Float]) in p.indices.max { p[$0] < p[$1] }! }
        let tied = fp32.indices.filter { fp32[$0] >= fp32[top(fp32)] - 0.02 }
        #expect(tied.contains(top(int8)), "int8's top-1 \(top(int8)) is not among fp32's best \(tied)")
        #expect(maximumAbsoluteDifference(int8, fp32) < 0.05)
    }

    /// Every kernel path and thread count gives the int8 network the same logits within a step of
    /// the quantizer: the int8 kernels agree exactly, the fp32 ops around them within rounding.
    @Test(arguments: KernelPaths.withThreads)
    func everyKernelPathRunsTheInt8Network(path: (kernels: KernelPath, threads: Int)) throws {
        let model = try Self.int8Model()
        let input = goldenInput(seed: 3, count: 224 * 224 * 3)
        let reference = KernelPath.run(on: KernelPath.best) { model.infer { _ = $0.update(fromContentsOf: input) } }
        try KernelPaths.with(path.kernels, threads: path.threads) {
            let output = model.infer { _ = $0.update(fromContentsOf: input) }
            // The fp32 ops differ across paths by rounding; a value on a rounding edge of the
            // quantizer may then move by one step, and the logits with it (0.08 on the portable
            // path with the unsmoothed table, 0.13 with the smoothed one, whose wide channels take
            // coarser steps), so this is a tolerance, not equality: 2% of the logits' spread
            // (about 9.5). A wrong integer sum moves logits by whole units.
            let spread = reference.logits.max()! - reference.logits.min()!
            #expect(maximumAbsoluteDifference(output.logits, reference.logits) < 0.02 * spread, "spread \(spread)")
            #expect(output.logits.indices.max { output.logits[$0] < output.logits[$1] } == reference.logits.indices.max { reference.logits[$0] < reference.logits[$1] })
        }
    }

    /// Ranges recorded on a few inputs give a quantized graph whose logits follow the fp32 graph's
    /// on those inputs (cosine similarity above 0.99 unsmoothed, 0.98 smoothed): the recorder,
    /// table and quantizer together, without the shipped table. The inputs are noise, far from
    /// photos; on the 500 calibration photos smoothing brings int8 closer to fp32, not further
    /// (docs/performance.md, "The network at int8").
    @Test(arguments: [nil, ActivationRangeRecorder.defaultSmoothing] as [Float?])
    func recordedRangesQuantizeTheGraph(smoothing: Float?) throws {
        var recorder = try ActivationRangeRecorder(model: ShippedModel.model)
        let inputs = (UInt32(11)...13).map { goldenInput(seed: $0, count: 224 * 224 * 3).map { $0 * 0.8 } }
        for input in inputs { recorder.add(tensor: input) }
        let source = CalibrationFile.Source(description: "test", imageCount: recorder.imageCount, failedCount: 0, createdBy: "test")
        let table = recorder.table(source: source, smoothing: smoothing)
        #expect(table.activations.count == ShippedModel.model.graph.operations.filter(GraphQuantizer.isQuantizable).count)
        #expect(table.channels?.count == table.activations.count)
        #expect(table.activations.values.allSatisfy { $0.min <= $0.max })
        let description = ShippedModel.model.description
        let weights = try SafeTensorsFile(contentsOf: ShippedModel.directory.appending(path: description.weights))
        let quantized = try GraphCompiler.compile(description, weights: weights, quantization: table)
        let workspace = quantized.makeWorkspace(), reference = ShippedModel.model
        for input in inputs {
            let expected = reference.infer { _ = $0.update(fromContentsOf: input) }.logits
            quantized.pointer(to: quantized.input, in: workspace).update(from: input, count: input.count)
            quantized.run(in: workspace)
            let logits = Array(UnsafeBufferPointer(start: quantized.pointer(to: reference.logitsValue, in: workspace), count: 1000))
            let dot = zip(logits, expected).reduce(Float(0)) { $0 + $1.0 * $1.1 }
            let norms = sqrt(logits.reduce(Float(0)) { $0 + $1 * $1 }) * sqrt(expected.reduce(Float(0)) { $0 + $1 * $1 })
            #expect(dot / norms > (smoothing == nil ? 0.99 : 0.98))
        }
    }

    /// A table is checked on load: wrong format, unsupported version, a NaN range.
    @Test func malformedTablesAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "quantization-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = CalibrationFile.Source(description: "t", imageCount: 1, failedCount: 0, createdBy: "t")
        let good = QuantizationTable(model: "m", modelVersion: "1", source: source, method: "min-max", activations: ["x": .init(min: -1, max: 2)])
        let url = folder.appending(path: "quantization.json")
        try good.write(to: url)
        #expect(try QuantizationTable(contentsOf: url) == good)
        for (text, expected) in [
            (#"{"format": "other", "formatVersion": 1, "model": "m", "modelVersion": "1", "method": "min-max", "source": {"description": "t", "imageCount": 1, "failedCount": 0, "createdBy": "t"}, "activations": {}}"#, "format is 'other'"),
            (#"{"format": "classify-quantization", "formatVersion": 9, "model": "m", "modelVersion": "1", "method": "min-max", "source": {"description": "t", "imageCount": 1, "failedCount": 0, "createdBy": "t"}, "activations": {}}"#, "9"),
            (#"{"format": "classify-quantization", "formatVersion": 1, "model": "m", "modelVersion": "1", "method": "min-max", "source": {"description": "t", "imageCount": 1, "failedCount": 0, "createdBy": "t"}, "activations": {"x": {"min": 3, "max": 1}}}"#, "activation 'x'"),
            (#"{"format": "classify-quantization", "formatVersion": 1, "model": "m", "modelVersion": "1", "method": "min-max", "source": {"description": "t", "imageCount": 1, "failedCount": 0, "createdBy": "t"}, "activations": {}, "smoothing": 1.5}"#, "smoothing 1.5"),
            (#"{"format": "classify-quantization", "formatVersion": 1, "model": "m", "modelVersion": "1", "method": "min-max", "source": {"description": "t", "imageCount": 1, "failedCount": 0, "createdBy": "t"}, "activations": {}, "channels": {"x": {"min": [0, 2], "max": [1]}}}"#, "channel ranges of 'x'"),
            ("not json", "quantization.json"),
        ] {
            try Data(text.utf8).write(to: url)
            let error = #expect(throws: ModelLoadingError.self) { _ = try QuantizationTable(contentsOf: url) }
            #expect(error.map { "\($0)".contains(expected) } == true, "\(String(describing: error)) should mention \(expected)")
        }
    }

    /// The tool's default: `CLASSIFY_PRECISION` when set, else int8 only with VNNI and a table.
    @Test func preferredPrecisionFollowsTheCPUTheTableAndTheEnvironment() {
        let withTable = ShippedModel.directory, withoutTable = FileManager.default.temporaryDirectory
        #expect(InferencePrecision.preferred(forModelAt: withoutTable, environment: [:]) == .fp32)
        if FileManager.default.fileExists(atPath: Self.tableURL.path) {
            #expect(InferencePrecision.preferred(forModelAt: withTable, environment: [:]) == (InferencePrecision.cpuHasVNNI ? .int8 : .fp32))
        }
        #expect(InferencePrecision.preferred(forModelAt: withTable, environment: ["CLASSIFY_PRECISION": "fp32"]) == .fp32)
        #expect(InferencePrecision.preferred(forModelAt: withoutTable, environment: ["CLASSIFY_PRECISION": "int8"]) == .int8)
        #expect(InferencePrecision.preferred(forModelAt: withoutTable, environment: ["CLASSIFY_PRECISION": "fast"]) == .fp32)
    }
}
