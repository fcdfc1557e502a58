import Foundation
import ClassifySupport

/// dlib's face recognition ResNet (`Models/face-recognition/network`): a 150x150 face chip to a
/// 128-d descriptor; two faces are the same person when their descriptors are less than
/// `samePersonDistance` apart. Loaded and compiled once, immutable and shared; each call borrows a
/// pooled workspace, so concurrent calls allocate nothing once warm.
///
/// ```swift
/// let recognizer = try FaceDescriptorModel(contentsOf: URL(fileURLWithPath: "Models/face-recognition"))
/// let descriptors = recognizer.descriptors(in: image, faces: detected, landmarks: landmarkModel)
/// ```
public final class FaceDescriptorModel: Sendable {
    /// Floats per descriptor. Usage: `FaceDescriptorModel.descriptorLength`
    public static let descriptorLength = 128
    /// dlib's threshold for the same person (Euclidean distance). Usage: `distance < FaceDescriptorModel.samePersonDistance`
    public static let samePersonDistance: Float = 0.6
    /// The chip side the network reads. Usage: `FaceDescriptorModel.chipSize`
    public static let chipSize = 150
    let description: NetworkDescription
    let graph: CompiledGraph
    private let output: ValueID
    private let workspaces = Locked<[Workspace]>([])

    /// Loads `network/model.json` and its weights from `directory` and compiles the graph.
    ///
    /// Usage: `let recognizer = try FaceDescriptorModel(contentsOf: directory)`
    public init(contentsOf directory: URL) throws(ModelLoadingError) {
        let network = directory.appending(path: "network")
        description = try NetworkDescription(contentsOf: network.appending(path: "model.json"))
        let input = description.input
        guard input.height == Self.chipSize, input.width == Self.chipSize, input.channels == 3, input.mean.count == 3,
            input.std.count == 3, let outputName = description.outputs["descriptor"]
        else {
            throw .invalidGraph(file: "network/model.json", node: input.name, reason: "expected a 150x150 RGB input and an output 'descriptor'")
        }
        let weights = try SafeTensorsFile(contentsOf: network.appending(path: description.weights))
        graph = try GraphCompiler.compile(
            nodes: description.nodes, input: input.name, inputShape: FeatureMapShape(height: Self.chipSize, width: Self.chipSize, channels: 3),
            outputs: [outputName], weights: weights, descriptionFile: "network/model.json")
        guard let output = graph.value(named: outputName), graph.shapes[output].elementCount == Self.descriptorLength else {
            throw .invalidGraph(file: "network/model.json", node: outputName, reason: "the descriptor must have 128 values")
        }
        self.output = output
    }

    /// The descriptor of a 150x150 chip (`FaceChip.extract`); nil for a chip of another size.
    ///
    /// Usage: `let descriptor = recognizer.descriptor(ofChip: chip)`
    public func descriptor(ofChip chip: DecodedImage) -> [Float]? {
        guard chip.width == Self.chipSize, chip.height == Self.chipSize else { return nil }
        let workspace = workspaces.withLock { $0.popLast() } ?? graph.makeWorkspace()
        defer { workspaces.withLock { $0.append(workspace) } }
        let input = graph.pointer(to: graph.input, in: workspace)
        let mean = description.input.mean, std = description.input.std
        for index in 0..<(Self.chipSize * Self.chipSize * 3) {
            let channel = index % 3
            input[index] = (Float(chip.pixels[index]) - mean[channel]) / std[channel]
        }
        graph.run(in: workspace)
        return Array(UnsafeBufferPointer(start: graph.pointer(to: output, in: workspace), count: Self.descriptorLength))
    }

    /// One descriptor per face (nil where no chip could be cut): landmarks from `landmarks` in
    /// each face's pixel box, then the chip, then the network.
    ///
    /// Usage: `let descriptors = recognizer.descriptors(in: image, faces: faces, landmarks: landmarkModel)`
    public func descriptors(in image: DecodedImage, faces: [FaceObservation], landmarks: FaceLandmarkModel) -> [[Float]?] {
        faces.map { face in
            let points = landmarks.landmarks(in: image, box: face.pixelBoundingBox)
            return FaceChip.extract(from: image, landmarks: points).flatMap(descriptor(ofChip:))
        }
    }
}
