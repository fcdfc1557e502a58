import CClassifyKernels

/// 2-D convolution with fused bias and activation, over NHWC maps. Any kernel size, stride,
/// padding and group count; the weights are repacked once, at load, for the strategy the shape
/// calls for:
/// - pointwise (1x1, stride 1, one group): a register-blocked GEMM (`cls_gemm_packed`) reading the
///   pixel rows in place, weights packed in panels of 16 output channels [Cout/16][Cin][16]; or,
///   when at least half the weights are zero (BlazeFace's pruned layers), a kernel that multiplies
///   by the nonzero ones only (`SparsePointwiseWeights`, on the AVX2 and portable paths, and on
///   AVX-512 where the output channels leave a GEMM panel part empty: see
///   `SparsePointwiseWeights.beatsDense`);
/// - depthwise (groups == channels): a direct kernel vectorized over channels, weights [kH][kW][C];
/// - direct (one group, not pointwise, and at most `directMaxInputChannels` input channels (the
///   RGB stem) or at most `directMaxOutputChannels` output channels from fewer than
///   `im2colMinInputChannels` inputs (MTCNN's small 3x3 convolutions)): a direct kernel
///   vectorized over output channels, weights
///   [kH][kW][Cin][Cout rounded up to 8]; it can apply a following PReLU in its store
///   (see `fusingPReLU`);
/// - anything else: im2col per group into scratch, then the same packed GEMM as pointwise, with
///   bias and activation in its store; weights packed once per group in panels of 16 output
///   channels over the window's taps. Taps that fall in the padding for every output pixel (a
///   3x3 "same" convolution on a 1x1 map reads only its center) are left out of both.
///
/// A pointwise or (one group) im2col convolution may also carry a fused residual add (see
/// `fusingResidual`): the graph's `Add` of this conv's output and another value then happens in
/// the GEMM's store.
struct Conv2DOperation: GraphOperation {
    enum Strategy: Sendable { case pointwise, depthwise, direct, im2col }

    /// A residual add fused into the store: output = clamp(conv + inputs[1]) with `activation`.
    struct Residual: Sendable {
        var value: ValueID
        var activation: Activation
    }

    static let directMaxInputChannels = 8
    /// Measured on P-Net's 10 -> 16 and 16 -> 32 3x3 layers (Zen 4): the direct kernel took a
    /// fifth to a third of the time of im2col and the BLAS GEMM of the time, which also writes and
    /// re-reads the unfolded patches. Wider outputs (O-Net's 64 -> 128) stay on im2col.
    static let directMaxOutputChannels = 64
    /// From this many input channels a narrow convolution goes through im2col and the packed
    /// GEMM instead: measured on dlib's ResNet (Zen 3, one thread), its 3x3 layers of 32 and 64
    /// channels at 35x35 and 17x17 took 0.26-0.33 ms against 0.31-0.36 ms direct (minimums).
    static let im2colMinInputChannels = 32

    let name: String
    let inputs: [ValueID]
    let output: ValueID
    let inputShape: FeatureMapShape
    let outputShape: FeatureMapShape
    let kernel: (height: Int, width: Int)
    let stride: (height: Int, width: Int)
    let padding: Padding
    let groups: Int
    let activation: Activation
    let strategy: Strategy
    let packedWeights: AlignedFloats
    let bias: AlignedFloats
    let residual: Residual?
    /// PReLU slopes applied in the store (direct strategy only); see `fusingPReLU`.
    let slopes: AlignedFloats?
    /// The nonzero weights of a mostly-zero pointwise convolution, nil for any other.
    let sparse: SparsePointwiseWeights?
    /// im2col only: the kernel taps (ky, kx) some output pixel reads inside the input, in
    /// (ky, kx) order; the unfolded rows and the packed weights hold these alone.
    let taps: [Im2Col.Tap]

    /// - Parameter weights: PyTorch layout [outChannels][inChannels / groups][kernelHeight][kernelWidth].
    init(
        name: String, input: ValueID, output: ValueID, inputShape: FeatureMapShape, outChannels: Int,
        kernel: (Int, Int), stride: (Int, Int), padding: Padding, groups: Int, activation: Activation,
        weights: [Float], bias: [Float]
    ) {
        self = weights.withUnsafeBufferPointer { weights in
            Conv2DOperation(
                name: name, input: input, output: output, inputShape: inputShape, outChannels: outChannels,
                kernel: kernel, stride: stride, padding: padding, groups: groups, activation: activation,
                weights: weights, bias: bias)
        }
    }

    /// - Parameter weights: as above, read in place (the mapped weights file) while packing.
    init(
        name: String, input: ValueID, output: ValueID, inputShape: FeatureMapShape, outChannels: Int,
        kernel: (Int, Int), stride: (Int, Int), padding: Padding, groups: Int, activation: Activation,
        weights: UnsafeBufferPointer<Float>, bias: [Float]
    ) {
        precondition(weights.count >= outChannels * (inputShape.channels / groups) * kernel.0 * kernel.1, "\(name): too few weights")
        self.name = name
        self.inputs = [input]
        self.output = output
        self.inputShape = inputShape
        self.kernel = kernel
        self.stride = stride
        self.padding = padding
        self.groups = groups
        self.activation = activation
        self.bias = AlignedFloats(bias)
        self.residual = nil
        self.slopes = nil
        var sparse: SparsePointwiseWeights?
        var taps: [Im2Col.Tap] = []
        outputShape = Self.outputShape(input: inputShape, outChannels: outChannels, kernel: kernel, stride: stride, padding: padding)
        let inPerGroup = inputShape.channels / groups, outPerGroup = outChannels / groups
        let (kh, kw) = kernel
        let isPointwise = Self.isPointwise(kernel: kernel, stride: stride, groups: groups, padding: padding)
        if groups == inputShape.channels && groups == outChannels {
            strategy = .depthwise
            packedWeights = AlignedFloats(count: kh * kw * outChannels) { packed in
                for c in 0..<outChannels { for y in 0..<kh { for x in 0..<kw {
                    packed[(y * kw + x) * outChannels + c] = weights[(c * kh + y) * kw + x]
                } } }
            }
        } else if isPointwise {
            strategy = .pointwise
            // PyTorch [Cout][Cin][1][1] is already [n][k] for the GEMM.
            let (k, n) = (inputShape.channels, outChannels)
            packedWeights = AlignedFloats(count: cls_gemm_packed_count(k, n)) { packed in
                cls_gemm_pack_weights(weights.baseAddress, k, n, packed)
            }
            // Made only where the path at load runs it (on AVX-512, few layers: a few
            // milliseconds of BlazeFace's load otherwise); a path changed later may run the dense
            // GEMM instead, never the other way round.
            if SparsePointwiseWeights.beatsDense(outChannels: n, on: KernelPath.current) {
                sparse = SparsePointwiseWeights(weights, inChannels: k, outChannels: n)
            }
        } else if groups == 1 && (inputShape.channels <= Self.directMaxInputChannels
            || (outChannels <= Self.directMaxOutputChannels && inputShape.channels < Self.im2colMinInputChannels)) {
            strategy = .direct
            let count = cls_direct_conv_packed_count(Int32(kh), Int32(kw), Int32(inputShape.channels), Int32(outChannels))
            packedWeights = AlignedFloats(count: count) { packed in
                cls_direct_conv_pack_weights(weights.baseAddress, Int32(kh), Int32(kw), Int32(inputShape.channels), Int32(outChannels), packed)
            }
        } else {
            strategy = .im2col
            taps = Im2Col.taps(input: inputShape, kernel: kernel, stride: stride, padding: padding, output: outputShape)
            // Per group g: output channel o's weights over the taps, (tap, input channel) order as
            // Im2Col unfolds them, packed for cls_gemm_packed.
            let k = taps.count * inPerGroup, groupCount = cls_gemm_packed_count(k, outPerGroup)
            packedWeights = AlignedFloats(count: groups * groupCount) { packed in
                // Through raw pointers: the array's per-element checks took most of dlib's load.
                var rows = [Float](repeating: 0, count: outPerGroup * k)
                rows.withUnsafeMutableBufferPointer { rows in
                    let rows = rows.baseAddress!, weights = weights.baseAddress!
                    for g in 0..<groups {
                        for o in 0..<outPerGroup {
                            let first = (g * outPerGroup + o) * inPerGroup * kh * kw
                            for (t, tap) in taps.enumerated() {
                                let row = rows + o * k + t * inPerGroup, source = weights + first + tap.y * kw + tap.x
                                for i in 0..<inPerGroup { row[i] = source[i * kh * kw] }
                            }
                        }
                        cls_gemm_pack_weights(rows, k, outPerGroup, packed + g * groupCount)
                    }
                }
            }
        }
        self.taps = taps
        self.sparse = sparse
    }

    private init(fusing base: Conv2DOperation, residual: Residual?, slopes: AlignedFloats?, output: ValueID) {
        name = base.name
        inputs = residual.map { [base.inputs[0], $0.value] } ?? base.inputs
        self.output = output
        inputShape = base.inputShape
        outputShape = base.outputShape
        kernel = base.kernel
        stride = base.stride
        padding = base.padding
        groups = base.groups
        activation = base.activation
        strategy = base.strategy
        packedWeights = base.packedWeights
        bias = base.bias
        self.residual = residual
        self.slopes = slopes
        sparse = base.sparse
        taps = base.taps
    }

    /// This convolution with `Add(self, value)` (then `activation`) done in its store, writing
    /// `output`; nil unless its GEMM does the store (pointwise, or im2col of one group).
    func fusingResidual(_ value: ValueID, activation: Activation, output: ValueID) -> Conv2DOperation? {
        guard strategy == .pointwise || (strategy == .im2col && groups == 1), residual == nil else { return nil }
        return Conv2DOperation(fusing: self, residual: Residual(value: value, activation: activation), slopes: nil, output: output)
    }

    /// This convolution with the PReLU reading its output done in its store, writing `output`;
    /// nil unless the strategy supports it (direct) and the activation is none.
    func fusingPReLU(_ prelu: PReLUOperation) -> Conv2DOperation? {
        guard strategy == .direct, slopes == nil, activation == .none, prelu.slopes.count == outputShape.channels else { return nil }
        return Conv2DOperation(fusing: self, residual: nil, slopes: prelu.slopes, output: prelu.output)
    }

    /// Whether a convolution of these is pointwise (1x1, stride 1, one group, unpadded); it takes
    /// that strategy unless it is also depthwise (one channel in and out).
    static func isPointwise(kernel: (Int, Int), stride: (Int, Int), groups: Int, padding: Padding) -> Bool {
        kernel == (1, 1) && stride == (1, 1) && groups == 1 && padding == .none
    }

    static func outputShape(input: FeatureMapShape, outChannels: Int, kernel: (Int, Int), stride: (Int, Int), padding: Padding) -> FeatureMapShape {
        FeatureMapShape(
            height: (input.height + padding.top + padding.bottom - kernel.0) / stride.0 + 1,
            width: (input.width + padding.left + padding.right - kernel.1) / stride.1 + 1,
            channels: outChannels)
    }

    var kindDescription: String {
        "Conv2D \(strategy) \(kernel.height)x\(kernel.width)/\(stride.height)" + (residual == nil ? "" : " +add") + (slopes == nil ? "" : " +prelu")
    }

    var scratchCount: Int {
        switch strategy {
        case .im2col: outputShape.pixelCount * taps.count * (inputShape.channels / groups)
        case .pointwise: sparse?.scratchCount ?? 0
        case .depthwise, .direct: 0
        }
    }

    func run(inputs: [UnsafePointer<Float>], output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        let input = inputs[0]
        let (lower, upper) = activation.clampRange
        let weights = packedWeights.base, bias = bias.base
        switch strategy {
        case .depthwise:
            cls_depthwise_conv2d(
                input, Int32(inputShape.height), Int32(inputShape.width), Int32(inputShape.channels),
                weights, bias, Int32(kernel.height), Int32(kernel.width),
                Int32(stride.height), Int32(stride.width), Int32(padding.top), Int32(padding.left),
                output, Int32(outputShape.height), Int32(outputShape.width), lower, upper)
        case .pointwise:
            let (residualLower, residualUpper) = residual?.activation.clampRange ?? (-.infinity, .infinity)
            if let sparse, SparsePointwiseWeights.beatsDense(outChannels: outputShape.channels, on: KernelPath.current) {
                sparse.run(
                    pixels: outputShape.pixelCount, input: input, bias: bias, lower: lower, upper: upper,
                    residual: residual == nil ? nil : inputs[1], residualLower: residualLower, residualUpper: residualUpper,
                    output: output, scratch: scratch, scratchCount: sparse.scratchCount)
                return
            }
            cls_gemm_packed(
                outputShape.pixelCount, outputShape.channels, inputShape.channels, input, inputShape.channels,
                weights, bias, lower, upper, residual == nil ? nil : inputs[1], residualLower, residualUpper,
                output, outputShape.channels)
        case .direct:
            cls_direct_conv2d(
                input, Int32(inputShape.height), Int32(inputShape.width), Int32(inputShape.channels),
                weights, bias, Int32(kernel.height), Int32(kernel.width),
                Int32(stride.height), Int32(stride.width), Int32(padding.top), Int32(padding.left), slopes?.base,
                output, Int32(outputShape.height), Int32(outputShape.width), Int32(outputShape.channels), lower, upper)
        case .im2col:
            let (residualLower, residualUpper) = residual?.activation.clampRange ?? (-.infinity, .infinity)
            let inPerGroup = inputShape.channels / groups, outPerGroup = outputShape.channels / groups
            let k = taps.count * inPerGroup, groupCount = cls_gemm_packed_count(k, outPerGroup)
            for g in 0..<groups {
                Im2Col.gather(
                    input: input, shape: inputShape, channelOffset: g * inPerGroup, channelCount: inPerGroup,
                    taps: taps, stride: stride, padding: padding, output: outputShape, into: scratch)
                cls_gemm_packed(
                    outputShape.pixelCount, outPerGroup, k, scratch, k, weights + g * groupCount, bias + g * outPerGroup,
                    lower, upper, residual == nil ? nil : inputs[1], residualLower, residualUpper, output + g * outPerGroup, outputShape.channels)
            }
        }
    }
}

extension Conv2DOperation: GraphOperationBuilder {
    static let opName = "Conv2D"
    /// Explicit padding beyond this is a broken file, not a network (BlazeFace pads by 1).
    static let maximumExplicitPadding = 64

    static func build(_ node: ModelDescription.Node, context: inout GraphBuildContext) throws(ModelLoadingError) -> any GraphOperation {
        let input = try context.inputs(of: node, count: 1)[0]
        let inChannels = try context.required(node.inChannels, "inChannels", of: node)
        let outChannels = try context.required(node.outChannels, "outChannels", of: node)
        let kernel = try context.required(node.kernel, "kernel", of: node)
        let stride = node.stride ?? [1, 1]
        let groups = node.groups ?? 1
        guard kernel.count == 2, stride.count == 2, kernel.allSatisfy({ $0 >= 1 }), stride.allSatisfy({ $0 >= 1 }) else {
            throw context.error(node, "kernel and stride must be two positive numbers")
        }
        guard inChannels == input.shape.channels else {
            throw context.error(node, "inChannels is \(inChannels) but input '\(node.inputs[0])' has \(input.shape.channels) channels")
        }
        guard groups >= 1, inChannels % groups == 0, outChannels % groups == 0 else {
            throw context.error(node, "groups \(groups) does not divide \(inChannels) -> \(outChannels) channels")
        }
        let padding: Padding
        switch node.padding ?? "valid" {
        case "same": padding = .same(input: input.shape, kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]))
        case "valid": padding = .none
        case "explicit":
            let pads = try context.required(node.pads, "pads", of: node)
            guard pads.count == 4, pads.allSatisfy({ (0...Self.maximumExplicitPadding).contains($0) }) else {
                throw context.error(node, "pads must be four numbers in 0...\(Self.maximumExplicitPadding) (top, left, bottom, right), not \(pads)")
            }
            padding = Padding(top: pads[0], left: pads[1], bottom: pads[2], right: pads[3])
        case let other: throw context.error(node, "unknown padding '\(other)' (same, valid or explicit)")
        }
        guard input.shape.height + padding.top + padding.bottom >= kernel[0],
            input.shape.width + padding.left + padding.right >= kernel[1]
        else { throw context.error(node, "kernel \(kernel) is larger than the padded input \(input.shape)") }
        let bias = node.bias == nil ? [Float](repeating: 0, count: outChannels) : try context.tensor(node.bias, "bias", shape: [outChannels], of: node)
        let activation = try context.activation(of: node)
        let shape = outputShape(input: input.shape, outChannels: outChannels, kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]), padding: padding)
        let output = context.define(node.output, shape: shape)
        let pointwise = isPointwise(kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]), groups: groups, padding: padding)
        let calibration = !pointwise ? nil : context.quantization.flatMap {
            GraphQuantizer.calibration(ofInput: node.inputs[0], channels: inChannels, pointwise: true, table: $0)
        }
        return try context.withTensor(node.weight, "weight", shape: [outChannels, inChannels / groups, kernel[0], kernel[1]], of: node) { weights -> any GraphOperation in
            if let calibration {
                return QuantizedPointwiseConvOperation(
                    name: node.name, input: input.id, output: output, inputShape: input.shape, outChannels: outChannels,
                    activation: activation, weights: weights, bias: bias, calibration: calibration)
            }
            return Conv2DOperation(
                name: node.name, input: input.id, output: output, inputShape: input.shape,
                outChannels: outChannels, kernel: (kernel[0], kernel[1]), stride: (stride[0], stride[1]), padding: padding,
                groups: groups, activation: activation, weights: weights, bias: bias)
        }
    }
}
