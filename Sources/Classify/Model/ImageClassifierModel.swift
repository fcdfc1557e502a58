import Foundation
import ClassifySupport

/// A loaded classification network: its description, compiled graph and packed weights.
///
/// Loading reads `model.json` and `model.safetensors`, checks every tensor's shape and plans
/// memory; after that the model is immutable and shared by any number of concurrent tasks. Each
/// inference borrows a reusable `Workspace` from a small pool, so steady-state inference
/// allocates nothing per layer.
///
/// ```swift
/// let model = try ImageClassifierModel.shared()              // the default model, loaded once
/// let custom = try ImageClassifierModel(contentsOf: directory)
/// ```
public final class ImageClassifierModel: Sendable {
    /// The directory the model was loaded from.
    public let directory: URL
    /// The parsed `model.json`.
    public let description: ModelDescription
    /// The labels: taxonomy and calibrated curves.
    public let labelSet: LabelSet
    let graph: CompiledGraph
    /// The arithmetic the network runs in (see `InferencePrecision`).
    public let precision: InferencePrecision
    /// Why images cannot be fed to this model through `ImageClassifier`, or nil when they can.
    public let imageInputProblem: String?
    let logitsValue: ValueID
    let probabilitiesValue: ValueID
    let featuresValue: ValueID
    private let workspaces = Locked<[Workspace]>([])

    /// Loads and checks the model in `directory` (`model.json` plus the weights file it names);
    /// with `precision: .int8` also `quantization.json`, and quantizes the weights.
    public convenience init(contentsOf directory: URL, precision: InferencePrecision = .fp32) throws(ModelLoadingError) {
        let description = try ModelDescription(contentsOf: directory.appending(path: "model.json"))
        let labels = Self.readingLabels(directory: directory, description: description, precision: precision)
        try self.init(directory: directory, description: description, precision: precision, labels: labels)
    }

    /// The label files (taxonomy, calibration, vocabulary: ~450 KB of JSON), read on another
    /// thread while the network compiles and quantizes; each takes a few tens of milliseconds.
    private static func readingLabels(
        directory: URL, description: ModelDescription, precision: InferencePrecision
    ) -> BackgroundWork<LabelSet, ModelLoadingError> {
        BackgroundWork { () throws(ModelLoadingError) in
            try LabelSet(directory: directory, description: description, precision: precision)
        }
    }

    /// Compiles the network of `description` and takes the labels `labels` reads meanwhile.
    init(
        directory: URL, description: ModelDescription, precision: InferencePrecision, labels: BackgroundWork<LabelSet, ModelLoadingError>
    ) throws(ModelLoadingError) {
        self.directory = directory
        guard description.input.channels == 3 else {
            throw .invalidGraph(file: "model.json", node: description.input.name, reason: "input must have 3 channels")
        }
        imageInputProblem = Self.imageInputProblem(description.input)
        let weights = try SafeTensorsFile(contentsOf: directory.appending(path: description.weights))
        switch precision {
        case .fp32:
            graph = try GraphCompiler.compile(description, weights: weights)
        case .int8:
            let table = try QuantizationTable(contentsOf: directory.appending(path: QuantizationTable.fileName))
            graph = try GraphCompiler.compile(description, weights: weights, quantization: table)
        }
        self.precision = precision
        self.description = description
        labelSet = try labels.value()
        logitsValue = graph.value(named: description.outputs.logits)!
        probabilitiesValue = graph.value(named: description.outputs.probabilities)!
        featuresValue = graph.value(named: description.outputs.features)!
        let classCount = graph.shapes[probabilitiesValue].elementCount
        guard classCount == description.labels.count else {
            throw .invalidGraph(file: "model.json", node: description.outputs.probabilities,
                                reason: "the network has \(classCount) outputs but \(description.labels.count) labels")
        }
    }

    /// The preprocessing (`Preprocessor`) implements one contract: RGB, short side resized to 256
    /// with the antialiased triangle filter, center crop 224, (x - 127) / 128, NHWC. A model asking
    /// for anything else is refused for images (it still runs on tensors) rather than fed wrongly
    /// prepared pixels.
    static func imageInputProblem(_ input: ModelDescription.InputContract) -> String? {
        let supported = input.layout == "NHWC" && input.channels == 3 && input.channelOrder == "RGB"
            && input.width == Preprocessor.cropSide && input.height == Preprocessor.cropSide
            && input.resizeShortSide == Preprocessor.resizedShortSide && input.crop == "center"
            && input.resizeFilter == "triangle-antialiased"
            && input.mean == [127, 127, 127] && input.std == [128, 128, 128]
        guard !supported else { return nil }
        return "model.json: the input contract (\(input.width)x\(input.height) \(input.channelOrder), resize \(input.resizeShortSide) \(input.resizeFilter), crop \(input.crop), mean \(input.mean), std \(input.std)) differs from the one this library's preprocessing implements (224x224 RGB, resize 256 triangle-antialiased, center crop, mean 127, std 128); run the model on tensors with infer instead"
    }

    /// A model being loaded on other threads, whose labels can be taken before its network has
    /// compiled: `index` installs them in the index meanwhile.
    ///
    /// ```swift
    /// let loading = try ImageClassifierModel.Loading(contentsOf: directory, precision: .int8)
    /// let labels = try loading.labelSet()   // taxonomy, curves and vocabulary
    /// let model = try loading.model()       // waits for the network
    /// ```
    public final class Loading: Sendable {
        /// The model's parsed `model.json`.
        public let description: ModelDescription
        private let labels: BackgroundWork<LabelSet, ModelLoadingError>
        private let network: BackgroundWork<ImageClassifierModel, ModelLoadingError>

        /// Reads `model.json` in `directory` and starts reading the label files and compiling the
        /// network, each on a thread of its own; errors come from `labelSet()` and `model()`.
        ///
        /// Usage: `let loading = try ImageClassifierModel.Loading(contentsOf: directory)`
        public init(contentsOf directory: URL, precision: InferencePrecision = .fp32) throws(ModelLoadingError) {
            let description = try ModelDescription(contentsOf: directory.appending(path: "model.json"))
            let labels = ImageClassifierModel.readingLabels(directory: directory, description: description, precision: precision)
            self.description = description
            self.labels = labels
            network = BackgroundWork { () throws(ModelLoadingError) in
                try ImageClassifierModel(directory: directory, description: description, precision: precision, labels: labels)
            }
        }

        /// Waits for the label files; the model's `labelSet` once it has loaded.
        ///
        /// Usage: `let vocabulary = IndexVocabulary(labelSet: try loading.labelSet(), description: loading.description)`
        public func labelSet() throws(ModelLoadingError) -> LabelSet { try labels.value() }

        /// Waits for the whole model (the same one on every call).
        ///
        /// Usage: `let classifier = ImageClassifier(model: try loading.model())`
        public func model() throws(ModelLoadingError) -> ImageClassifierModel { try network.value() }
    }

    private static let sharedModels = Locked<[String: ImageClassifierModel]>([:])

    /// The model in the default directory (see `ModelLocator`), loaded on first use and then shared.
    public static func shared(modelName: String = ModelLocator.defaultModelName) throws(ModelLoadingError) -> ImageClassifierModel {
        if let model = sharedModels.withLock({ $0[modelName] }) { return model }
        let model = try ImageClassifierModel(contentsOf: ModelLocator.defaultModelDirectory(modelName: modelName))
        return sharedModels.withLock { models in
            if let existing = models[modelName] { return existing }
            models[modelName] = model
            return model
        }
    }

    /// The model in `directory` at `precision`, loaded on first use and then shared (keyed by the
    /// standardized path and the precision).
    public static func shared(directory: URL, precision: InferencePrecision = .fp32) throws(ModelLoadingError) -> ImageClassifierModel {
        let key = directory.standardizedFileURL.path + (precision == .fp32 ? "" : "#\(precision.rawValue)")
        if let model = sharedModels.withLock({ $0[key] }) { return model }
        let model = try ImageClassifierModel(contentsOf: directory, precision: precision)
        return sharedModels.withLock { models in
            if let existing = models[key] { return existing }
            models[key] = model
            return model
        }
    }

    /// Input height and width in pixels (224 for EfficientNet-Lite0).
    public var inputSize: (width: Int, height: Int) { (description.input.width, description.input.height) }

    /// Number of values in the pooled feature vector (1280 for EfficientNet-Lite0).
    public var featureCount: Int { graph.shapes[featuresValue].elementCount }

    /// Runs the network. `fillInput` writes the normalized NHWC input tensor into the buffer it is
    /// given (height x width x 3 floats); the result holds logits, probabilities and pooled features.
    ///
    /// ```swift
    /// let output = model.infer { tensor in tensor.update(repeating: 0) }
    /// print(output.probabilities.max()!)
    /// ```
    public func infer(_ fillInput: (UnsafeMutableBufferPointer<Float>) throws -> Void) rethrows -> InferenceOutput {
        let workspace = workspaces.withLock { $0.popLast() } ?? graph.makeWorkspace()
        defer { workspaces.withLock { $0.append(workspace) } }
        let input = graph.pointer(to: graph.input, in: workspace)
        try fillInput(UnsafeMutableBufferPointer(start: input, count: graph.shapes[graph.input].elementCount))
        graph.run(in: workspace)
        func read(_ value: ValueID) -> [Float] {
            Array(UnsafeBufferPointer(start: graph.pointer(to: value, in: workspace), count: graph.shapes[value].elementCount))
        }
        return InferenceOutput(logits: read(logitsValue), probabilities: read(probabilitiesValue), features: read(featuresValue))
    }
}

/// What one run of the network produced.
public struct InferenceOutput: Sendable {
    /// Raw class scores, in label order.
    public var logits: [Float]
    /// Softmax of the logits: one probability per label, summing to 1.
    public var probabilities: [Float]
    /// The globally pooled features before the classifier (1280 values for Lite0), not normalized.
    public var features: [Float]
}
