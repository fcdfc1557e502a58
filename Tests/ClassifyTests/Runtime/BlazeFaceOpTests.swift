import ClassifyTestSupport
import Foundation
import Testing
@testable import Classify

/// The ops BlazeFace added (ResizeBilinear, DepthToSpace, explicit convolution padding through
/// the graph builder) against the scalar reference, on odd sizes and several seeds. The resize
/// is a C kernel (AVX2 and portable; an AVX-512 CPU runs the AVX2 variant), compared on every
/// path, alone and with a fused Add; DepthToSpace is plain Swift with one implementation; the
/// explicit padding of every convolution strategy is compared on every path in
/// `KernelTests.convolutionMatchesReference`.
struct BlazeFaceOpTests {
    struct ResizeCase: CustomTestStringConvertible, Sendable {
        var height: Int, width: Int, channels: Int, outHeight: Int, outWidth: Int
        var alignCorners: Bool, halfPixelCenters: Bool, seed: UInt64
        var testDescription: String {
            "\(height)x\(width)x\(channels) -> \(outHeight)x\(outWidth) \(alignCorners ? "aligned" : halfPixelCenters ? "half-pixel" : "plain") seed \(seed)"
        }
    }

    /// BlazeFace's three 2x upsamplings (half-pixel centers), odd sizes and channel counts,
    /// downscaling, one-pixel inputs and outputs, and the other two coordinate conventions.
    static let resizeCases: [ResizeCase] = [
        .init(height: 6, width: 6, channels: 64, outHeight: 12, outWidth: 12, alignCorners: false, halfPixelCenters: true, seed: 1),
        .init(height: 12, width: 12, channels: 64, outHeight: 24, outWidth: 24, alignCorners: false, halfPixelCenters: true, seed: 2),
        .init(height: 24, width: 24, channels: 48, outHeight: 48, outWidth: 48, alignCorners: false, halfPixelCenters: true, seed: 3),
        .init(height: 5, width: 7, channels: 3, outHeight: 11, outWidth: 13, alignCorners: false, halfPixelCenters: true, seed: 4),
        .init(height: 9, width: 13, channels: 5, outHeight: 4, outWidth: 6, alignCorners: false, halfPixelCenters: true, seed: 5),
        .init(height: 1, width: 1, channels: 7, outHeight: 3, outWidth: 2, alignCorners: false, halfPixelCenters: true, seed: 6),
        .init(height: 5, width: 4, channels: 9, outHeight: 1, outWidth: 1, alignCorners: false, halfPixelCenters: true, seed: 7),
        .init(height: 5, width: 7, channels: 3, outHeight: 11, outWidth: 13, alignCorners: true, halfPixelCenters: false, seed: 8),
        .init(height: 5, width: 7, channels: 17, outHeight: 10, outWidth: 3, alignCorners: false, halfPixelCenters: false, seed: 9),
        .init(height: 4, width: 4, channels: 1, outHeight: 1, outWidth: 9, alignCorners: true, halfPixelCenters: false, seed: 10),
    ]

    @Test(arguments: resizeCases, KernelPath.allCases)
    func resizeBilinearMatchesTheReference(_ c: ResizeCase, path: KernelPath) throws {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.channels)
        let input = random.floats(shape.elementCount, in: -4...4)
        let operation = ResizeBilinearOperation(
            name: "r", input: 0, output: 1, inputShape: shape, height: c.outHeight, width: c.outWidth,
            alignCorners: c.alignCorners, halfPixelCenters: c.halfPixelCenters)
        let expected = ReferenceKernels.resizeBilinear(
            input, shape: shape, height: c.outHeight, width: c.outWidth, alignCorners: c.alignCorners, halfPixelCenters: c.halfPixelCenters)
        #expect(operation.outputShape == expected.shape)
        // With an Add fused (its other operand, then the activation's clamp), as the pyramid runs it.
        let skip = random.floats(expected.shape.elementCount, in: -4...4)
        let fused = try #require(operation.fusingResidual(2, activation: .relu6, output: 3))
        #expect(fused.inputs == [0, 2] && fused.output == 3 && fused.fusingResidual(4, activation: .none, output: 5) == nil)
        try KernelPaths.with(path) {
            let output = FaceOpTests.run(operation, input: input, outputCount: expected.shape.elementCount)
            #expect(maximumAbsoluteDifference(output, expected.values) < 1e-5)
            let sum = FaceOpTests.run(fused, inputs: [input, skip], outputCount: expected.shape.elementCount)
            #expect(maximumAbsoluteDifference(sum, ReferenceKernels.add(expected.values, skip, activation: .relu6)) < 1e-5)
        }
    }

    /// The compiler folds an Add of a resized map into the resize, and the graph computes what
    /// it computed unfused (BlazeFace's pyramid step: upsample a coarse map, add a finer one).
    @Test func resizeTakesTheFollowingAdd() throws {
        let coarse = FeatureMapShape(height: 3, width: 5, channels: 6)
        var random = SeededRandom(seed: 31)
        let input = random.floats(coarse.elementCount, in: -2...2)
        let nodes = [
            Self.node("ResizeBilinear") { $0.size = [6, 10]; $0.halfPixelCenters = true; $0.output = "up" },
            Self.node("ResizeBilinear") { $0.size = [6, 10]; $0.output = "fine" },
            Self.node("Add") { $0.inputs = ["up", "fine"]; $0.activation = "relu"; $0.output = "out" },
        ]
        let url = Self.safetensors([])
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let weights = try SafeTensorsFile(contentsOf: url)
        func run(fuse: Bool) throws -> (values: [Float], operations: Int) {
            let graph = try GraphCompiler.compile(
                nodes: nodes, input: "image", inputShape: coarse, outputs: ["out"], weights: weights, descriptionFile: "test.json",
                fuseResiduals: fuse)
            let workspace = graph.makeWorkspace()
            graph.pointer(to: graph.input, in: workspace).update(from: input, count: input.count)
            graph.run(in: workspace)
            let out = graph.value(named: "out")!
            return (Array(UnsafeBufferPointer(start: graph.pointer(to: out, in: workspace), count: graph.shapes[out].elementCount)), graph.operations.count)
        }
        let fused = try run(fuse: true), plain = try run(fuse: false)
        #expect(fused.operations == 2 && plain.operations == 3)
        #expect(maximumAbsoluteDifference(fused.values, plain.values) < 1e-6)
    }

    /// Half-pixel 2x upsampling of [0, 1, 2] along one axis, by hand: samples at -0.25, 0.25,
    /// 0.75, 1.25, 1.75, 2.25 give 0 (clamped), 0.25, 0.75, 1.25, 1.75, 2 (clamped).
    @Test func halfPixelUpsamplingByHand() {
        let operation = ResizeBilinearOperation(
            name: "r", input: 0, output: 1, inputShape: FeatureMapShape(height: 1, width: 3, channels: 1), height: 1, width: 6,
            alignCorners: false, halfPixelCenters: true)
        #expect(FaceOpTests.run(operation, input: [0, 1, 2], outputCount: 6) == [0, 0.25, 0.75, 1.25, 1.75, 2])
    }

    @Test(arguments: [(1, 1, 4, 2, UInt64(21)), (24, 24, 4, 2, 22), (24, 24, 64, 2, 23), (3, 5, 27, 3, 24), (7, 2, 8, 2, 25), (2, 3, 5, 1, 26)])
    func depthToSpaceMatchesTheReference(c: (height: Int, width: Int, channels: Int, block: Int, seed: UInt64)) {
        var random = SeededRandom(seed: c.seed)
        let shape = FeatureMapShape(height: c.height, width: c.width, channels: c.channels)
        let input = random.floats(shape.elementCount)
        let operation = DepthToSpaceOperation(name: "d", inputs: [0], output: 1, inputShape: shape, blockSize: c.block)
        let expected = ReferenceKernels.depthToSpace(input, shape: shape, blockSize: c.block)
        #expect(operation.outputShape == expected.shape)
        #expect(FaceOpTests.run(operation, input: input, outputCount: expected.shape.elementCount) == expected.values)
    }

    /// One pixel of 2x2x... channels by hand: channels (i * 2 + j) * C + c go to pixel (i, j).
    @Test func depthToSpaceByHand() {
        let operation = DepthToSpaceOperation(name: "d", inputs: [0], output: 1, inputShape: FeatureMapShape(height: 1, width: 1, channels: 8), blockSize: 2)
        // Output pixels (0,0) (0,1) (1,0) (1,1), two channels each.
        #expect(FaceOpTests.run(operation, input: [0, 1, 2, 3, 4, 5, 6, 7], outputCount: 8) == [0, 1, 2, 3, 4, 5, 6, 7])
        let wide = DepthToSpaceOperation(name: "d", inputs: [0], output: 1, inputShape: FeatureMapShape(height: 1, width: 2, channels: 4), blockSize: 2)
        // Input pixel 0 = [a b c d], pixel 1 = [e f g h]; output rows: [a b e f], [c d g h].
        #expect(FaceOpTests.run(wide, input: [0, 1, 2, 3, 4, 5, 6, 7], outputCount: 8) == [0, 1, 4, 5, 2, 3, 6, 7])
    }

    static func node(_ op: String, _ configure: (inout ModelDescription.Node) -> Void) -> ModelDescription.Node {
        var node = ModelDescription.Node(name: "n", op: op, inputs: ["image"], output: "out")
        configure(&node)
        return node
    }

    static func compile(_ node: ModelDescription.Node, input: FeatureMapShape, tensors: [(String, [Int], [Float])] = []) throws(ModelLoadingError) -> CompiledGraph {
        let url = Self.safetensors(tensors)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let weights = try SafeTensorsFile(contentsOf: url)
        return try GraphCompiler.compile(
            nodes: [node], input: "image", inputShape: input, outputs: ["out"], weights: weights, descriptionFile: "test.json")
    }

    /// A small F32 safetensors file of `tensors` in a fresh temporary directory.
    static func safetensors(_ tensors: [(String, [Int], [Float])]) -> URL {
        var header: [String] = [], data = Data(), offset = 0
        for (name, shape, values) in tensors {
            header.append("\"\(name)\":{\"dtype\":\"F32\",\"shape\":\(shape),\"data_offsets\":[\(offset),\(offset + values.count * 4)]}")
            for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
            offset += values.count * 4
        }
        var json = Data(("{" + header.joined(separator: ",") + "}").utf8)
        json.append(contentsOf: [UInt8](repeating: 0x20, count: (8 - json.count % 8) % 8))
        var file = Data()
        withUnsafeBytes(of: UInt64(json.count).littleEndian) { file.append(contentsOf: $0) }
        file.append(json)
        file.append(data)
        let directory = FileManager.default.temporaryDirectory.appending(path: "blazeface-op-tests-\(UUID().uuidString)")
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let url = directory.appending(path: "model.safetensors")
        try! file.write(to: url)
        return url
    }

    /// Bad attributes are load errors that name the node, never crashes.
    @Test func badAttributesAreLoadErrors() throws {
        let map = FeatureMapShape(height: 4, width: 4, channels: 8)
        let bad: [ModelDescription.Node] = [
            Self.node("ResizeBilinear") { $0.size = [0, 4] },
            Self.node("ResizeBilinear") { $0.size = [4] },
            Self.node("ResizeBilinear") { $0.size = nil },
            Self.node("ResizeBilinear") { $0.size = [8, 8]; $0.alignCorners = true; $0.halfPixelCenters = true },
            Self.node("ResizeBilinear") { $0.size = nil; $0.scale = [0, 2] },
            Self.node("ResizeBilinear") { $0.size = nil; $0.scale = [2] },
            Self.node("ResizeBilinear") { $0.size = [8, 8]; $0.scale = [2, 2] },
            Self.node("DepthToSpace") { $0.blockSize = 3 },
            Self.node("DepthToSpace") { $0.blockSize = 0 },
            Self.node("DepthToSpace") { $0.blockSize = nil },
        ]
        for node in bad {
            #expect(throws: ModelLoadingError.self, "\(node.op) \(node.size ?? []) \(node.blockSize ?? -1)") { _ = try Self.compile(node, input: map) }
        }
        let resized = try Self.compile(Self.node("ResizeBilinear") { $0.size = [8, 6]; $0.halfPixelCenters = true }, input: map)
        #expect(resized.shapes[resized.value(named: "out")!] == FeatureMapShape(height: 8, width: 6, channels: 8))
        // `scale` follows the input, so the network runs at any size.
        let scaled = try Self.compile(Self.node("ResizeBilinear") { $0.size = nil; $0.scale = [2, 3]; $0.halfPixelCenters = true }, input: map)
        #expect(scaled.shapes[scaled.value(named: "out")!] == FeatureMapShape(height: 8, width: 12, channels: 8))
        let spread = try Self.compile(Self.node("DepthToSpace") { $0.blockSize = 2 }, input: map)
        #expect(spread.shapes[spread.value(named: "out")!] == FeatureMapShape(height: 8, width: 8, channels: 2))
    }

    /// `"padding": "explicit"` takes `pads` [top, left, bottom, right]: BlazeFace's 3x3/2 with one
    /// pixel on every side turns 12 into 6 (where "same" would pad 0 before and 1 after).
    @Test func explicitPaddingReachesTheConvolution() throws {
        let map = FeatureMapShape(height: 12, width: 12, channels: 4)
        func conv(_ pads: [Int]?) -> ModelDescription.Node {
            Self.node("Conv2D") {
                $0.weight = "w"; $0.inChannels = 4; $0.outChannels = 4; $0.kernel = [3, 3]; $0.stride = [2, 2]
                $0.groups = 4; $0.padding = "explicit"; $0.pads = pads
            }
        }
        let weights = [("w", [4, 1, 3, 3], [Float](repeating: 1, count: 36))]
        let graph = try Self.compile(conv([1, 1, 1, 1]), input: map, tensors: weights)
        let operation = try #require(graph.operations.first as? Conv2DOperation)
        #expect(operation.padding == Padding(top: 1, left: 1, bottom: 1, right: 1))
        #expect(operation.outputShape == FeatureMapShape(height: 6, width: 6, channels: 4))
        for pads in [nil, [1, 1, 1], [-1, 0, 0, 0], [1, 1, 1, 100]] as [[Int]?] {
            #expect(throws: ModelLoadingError.self, "\(String(describing: pads))") { _ = try Self.compile(conv(pads), input: map, tensors: weights) }
        }
    }
}
