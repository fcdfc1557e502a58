import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// A tiny but complete model (stem conv, depthwise, pointwise, residual add, pool, classifier,
/// softmax) written on the fly, to check loading, validation and errors independently of the
/// shipped weights.
struct TinyModel {
    var nodes: [[String: Any]]
    var tensors: [(name: String, shape: [Int], values: [Float])]
    var formatVersion = 1
    var labelCount = 3

    static func make(seed: UInt64 = 1) -> TinyModel {
        var random = SeededRandom(seed: seed)
        func conv(_ name: String, _ input: String, _ cin: Int, _ cout: Int, _ k: Int, _ s: Int, _ groups: Int, _ activation: String) -> [String: Any] {
            ["name": name, "op": "Conv2D", "inputs": [input], "output": name, "weight": "\(name).weight", "bias": "\(name).bias",
             "inChannels": cin, "outChannels": cout, "kernel": [k, k], "stride": [s, s], "padding": "same", "groups": groups,
             "activation": activation]
        }
        let nodes: [[String: Any]] = [
            conv("stem", "image", 3, 8, 3, 2, 1, "relu6"),
            conv("dw", "stem", 8, 8, 5, 1, 8, "relu6"),
            conv("pw", "dw", 8, 8, 1, 1, 1, "none"),
            ["name": "add", "op": "Add", "inputs": ["pw", "stem"], "output": "add"],
            ["name": "pool", "op": "GlobalAveragePool", "inputs": ["add"], "output": "features"],
            ["name": "fc", "op": "FullyConnected", "inputs": ["features"], "output": "logits", "weight": "fc.weight",
             "bias": "fc.bias", "inFeatures": 8, "outFeatures": 3],
            ["name": "softmax", "op": "Softmax", "inputs": ["logits"], "output": "probabilities"],
        ]
        let tensors: [(String, [Int], [Float])] = [
            ("stem.weight", [8, 3, 3, 3], random.floats(216)), ("stem.bias", [8], random.floats(8)),
            ("dw.weight", [8, 1, 5, 5], random.floats(200)), ("dw.bias", [8], random.floats(8)),
            ("pw.weight", [8, 8, 1, 1], random.floats(64)), ("pw.bias", [8], random.floats(8)),
            ("fc.weight", [3, 8], random.floats(24)), ("fc.bias", [3], random.floats(3)),
        ]
        return TinyModel(nodes: nodes, tensors: tensors)
    }

    func write(to directory: URL) throws {
        let labels = (0..<labelCount).map { ["index": $0, "wnid": String(format: "n%08d", $0), "identifier": "label_\($0)", "name": "label \($0)"] as [String: Any] }
        let description: [String: Any] = [
            "format": "classify-model", "formatVersion": formatVersion, "name": "tiny", "modelVersion": "1",
            "provenance": ["package": "tests", "packageVersion": "0", "file": "none", "sha256": "0", "license": "CC0"],
            "weights": "model.safetensors",
            "input": ["name": "image", "layout": "NHWC", "height": 9, "width": 11, "channels": 3, "channelOrder": "RGB",
                      "mean": [127, 127, 127], "std": [128, 128, 128], "resizeShortSide": 10, "resizeFilter": "triangle-antialiased", "crop": "center"],
            "outputs": ["logits": "logits", "probabilities": "probabilities", "features": "features"],
            "nodes": nodes, "labels": labels,
        ]
        try JSONSerialization.data(withJSONObject: description).write(to: directory.appending(path: "model.json"))
        try SafeTensorsWriter.data(tensors).write(to: directory.appending(path: "model.safetensors"))
    }

    /// The network evaluated with the reference kernels only.
    func referenceLogits(input: [Float]) -> [Float] {
        func tensor(_ name: String) -> [Float] { tensors.first { $0.name == name }!.values }
        let imageShape = FeatureMapShape(height: 9, width: 11, channels: 3)
        let stem = ReferenceKernels.conv2d(input: input, shape: imageShape, weights: tensor("stem.weight"), bias: tensor("stem.bias"), outChannels: 8,
                                           kernel: (3, 3), stride: (2, 2), padding: .same(input: imageShape, kernel: (3, 3), stride: (2, 2)), groups: 1, activation: .relu6)
        let dw = ReferenceKernels.conv2d(input: stem.values, shape: stem.shape, weights: tensor("dw.weight"), bias: tensor("dw.bias"), outChannels: 8,
                                         kernel: (5, 5), stride: (1, 1), padding: .same(input: stem.shape, kernel: (5, 5), stride: (1, 1)), groups: 8, activation: .relu6)
        let pw = ReferenceKernels.conv2d(input: dw.values, shape: dw.shape, weights: tensor("pw.weight"), bias: tensor("pw.bias"), outChannels: 8,
                                         kernel: (1, 1), stride: (1, 1), padding: .none, groups: 1, activation: .none)
        let sum = ReferenceKernels.add(pw.values, stem.values, activation: .none)
        let pooled = ReferenceKernels.globalAveragePool(sum, shape: stem.shape)
        return ReferenceKernels.fullyConnected(pooled, weights: tensor("fc.weight"), bias: tensor("fc.bias"), outFeatures: 3, activation: .none)
    }
}

struct ModelLoadingTests {
    @Test func tinyModelRunsLikeTheReference() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tiny = TinyModel.make()
        try tiny.write(to: directory)
        let model = try ImageClassifierModel(contentsOf: directory)
        #expect(model.featureCount == 8)
        var random = SeededRandom(seed: 42)
        let input = random.floats(9 * 11 * 3)
        let output = model.infer { _ = $0.update(fromContentsOf: input) }
        #expect(maximumAbsoluteDifference(output.logits, tiny.referenceLogits(input: input)) < 1e-4)
        #expect(maximumAbsoluteDifference(output.probabilities, ReferenceKernels.softmax(output.logits)) < 1e-6)
        // The workspace is reused: a second, different input gives its own answer.
        let second = random.floats(9 * 11 * 3)
        let again = model.infer { _ = $0.update(fromContentsOf: second) }
        #expect(maximumAbsoluteDifference(again.logits, tiny.referenceLogits(input: second)) < 1e-4)
    }

    @Test func missingTensorIsNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var tiny = TinyModel.make()
        tiny.tensors.removeAll { $0.name == "dw.weight" }
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.missingTensor(file: "model.safetensors", tensor: "dw.weight")) {
            try ImageClassifierModel(contentsOf: directory)
        }
    }

    @Test func wrongShapeIsNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var tiny = TinyModel.make()
        let index = tiny.tensors.firstIndex { $0.name == "fc.weight" }!
        tiny.tensors[index].shape = [8, 3]
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.shapeMismatch(file: "model.safetensors", tensor: "fc.weight", expected: [3, 8], found: [8, 3])) {
            try ImageClassifierModel(contentsOf: directory)
        }
    }

    @Test func truncatedWeightsAreReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try TinyModel.make().write(to: directory)
        let url = directory.appending(path: "model.safetensors")
        let data = try Data(contentsOf: url)
        for length in [0, 5, 12, data.count - 7] {
            try data.prefix(length).write(to: url)
            #expect {
                try ImageClassifierModel(contentsOf: directory)
            } throws: { error in
                guard case .malformed(let file, _) = error as? ModelLoadingError else { return false }
                return file == "model.safetensors"
            }
        }
    }

    @Test func missingFilesAndNewerFormatsAreReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect {
            try ImageClassifierModel(contentsOf: directory)
        } throws: { error in
            guard case .unreadable(let file, _) = error as? ModelLoadingError else { return false }
            return file == "model.json"
        }
        var tiny = TinyModel.make()
        tiny.formatVersion = 2
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.unsupportedFormat(file: "model.json", found: 2, supported: 1)) {
            try ImageClassifierModel(contentsOf: directory)
        }
        try FileManager.default.removeItem(at: directory.appending(path: "model.safetensors"))
        tiny.formatVersion = 1
        try tiny.write(to: directory)
        try FileManager.default.removeItem(at: directory.appending(path: "model.safetensors"))
        #expect {
            try ImageClassifierModel(contentsOf: directory)
        } throws: { error in
            guard case .unreadable(let file, _) = error as? ModelLoadingError else { return false }
            return file == "model.safetensors"
        }
    }

    @Test func inconsistentGraphsAreRejected() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var tiny = TinyModel.make()
        tiny.nodes[3]["inputs"] = ["pw", "nowhere"]
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.invalidGraph(file: "model.json", node: "add", reason: "input 'nowhere' is not computed before this node")) {
            try ImageClassifierModel(contentsOf: directory)
        }
        tiny = TinyModel.make()
        tiny.nodes[1]["op"] = "Mystery"
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.invalidGraph(file: "model.json", node: "dw", reason: "unknown op 'Mystery'")) {
            try ImageClassifierModel(contentsOf: directory)
        }
        tiny = TinyModel.make()
        tiny.labelCount = 4
        try tiny.write(to: directory)
        #expect(throws: ModelLoadingError.invalidGraph(file: "model.json", node: "probabilities", reason: "the network has 3 outputs but 4 labels")) {
            try ImageClassifierModel(contentsOf: directory)
        }
    }

    @Test func concurrentInferencesShareOneModel() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let tiny = TinyModel.make(seed: 7)
        try tiny.write(to: directory)
        let model = try ImageClassifierModel(contentsOf: directory)
        let inputs = (0..<16).map { seed in
            var random = SeededRandom(seed: UInt64(seed))
            return random.floats(9 * 11 * 3)
        }
        let results = await withTaskGroup(of: (Int, [Float]).self) { group in
            for (index, input) in inputs.enumerated() {
                group.addTask { (index, model.infer { _ = $0.update(fromContentsOf: input) }.logits) }
            }
            var results = [[Float]](repeating: [], count: inputs.count)
            for await (index, logits) in group { results[index] = logits }
            return results
        }
        for (input, logits) in zip(inputs, results) {
            #expect(maximumAbsoluteDifference(logits, tiny.referenceLogits(input: input)) < 1e-4)
        }
    }
}

struct InputContractTests {
    @Test func shippedModelTakesImages() {
        #expect(ShippedModel.model.imageInputProblem == nil)
    }

    @Test func otherContractsAreRefusedForImagesButRunOnTensors() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try TinyModel.make().write(to: directory)
        let model = try ImageClassifierModel(contentsOf: directory)
        #expect(model.imageInputProblem?.contains("input contract") == true)
        #expect {
            try ImageClassifier(model: model).classify(data: Data([0xFF, 0xD8, 0xFF]))
        } throws: { error in
            (error as? ClassificationError)?.stage == .preprocess
        }
    }
}
