import Foundation

/// Plain scalar implementations of every op: the truth the fast kernels are tested against.
/// They read weights in the file's own layout (PyTorch [O][I/g][kH][kW]), so a test against them
/// also checks the fast path's weight packing. Never used for inference.
enum ReferenceKernels {
    static func conv2d(
        input: [Float], shape: FeatureMapShape, weights: [Float], bias: [Float]?, outChannels: Int,
        kernel: (Int, Int), stride: (Int, Int), padding: Padding, groups: Int, activation: Activation
    ) -> (values: [Float], shape: FeatureMapShape) {
        let (kh, kw) = kernel
        let out = FeatureMapShape(
            height: (shape.height + padding.top + padding.bottom - kh) / stride.0 + 1,
            width: (shape.width + padding.left + padding.right - kw) / stride.1 + 1,
            channels: outChannels)
        let inPerGroup = shape.channels / groups, outPerGroup = outChannels / groups
        let (lower, upper) = activation.clampRange
        var result = [Float](repeating: 0, count: out.elementCount)
        for oy in 0..<out.height {
            for ox in 0..<out.width {
                for o in 0..<outChannels {
                    let group = o / outPerGroup
                    var sum = Double(bias?[o] ?? 0)
                    for i in 0..<inPerGroup {
                        let channel = group * inPerGroup + i
                        for y in 0..<kh {
                            for x in 0..<kw {
                                let iy = oy * stride.0 + y - padding.top, ix = ox * stride.1 + x - padding.left
                                guard iy >= 0, iy < shape.height, ix >= 0, ix < shape.width else { continue }
                                let value = input[(iy * shape.width + ix) * shape.channels + channel]
                                sum += Double(value) * Double(weights[((o * inPerGroup + i) * kh + y) * kw + x])
                            }
                        }
                    }
                    result[(oy * out.width + ox) * outChannels + o] = min(max(Float(sum), lower), upper)
                }
            }
        }
        return (result, out)
    }

    static func add(_ a: [Float], _ b: [Float], activation: Activation) -> [Float] {
        let (lower, upper) = activation.clampRange
        return zip(a, b).map { min(max($0 + $1, lower), upper) }
    }

    static func globalAveragePool(_ input: [Float], shape: FeatureMapShape) -> [Float] {
        (0..<shape.channels).map { c in
            var sum = 0.0
            for p in 0..<shape.pixelCount { sum += Double(input[p * shape.channels + c]) }
            return Float(sum / Double(shape.pixelCount))
        }
    }

    static func fullyConnected(_ input: [Float], weights: [Float], bias: [Float], outFeatures: Int, activation: Activation) -> [Float] {
        let (lower, upper) = activation.clampRange
        return (0..<outFeatures).map { o in
            var sum = Double(bias[o])
            for i in input.indices { sum += Double(weights[o * input.count + i]) * Double(input[i]) }
            return min(max(Float(sum), lower), upper)
        }
    }

    static func prelu(_ input: [Float], slopes: [Float]) -> [Float] {
        input.indices.map { i in input[i] >= 0 ? input[i] : input[i] * slopes[i % slopes.count] }
    }

    /// PyTorch MaxPool2d without padding; `ceilMode` keeps partial windows at the far edges
    /// (a window must start inside the input).
    static func maxPool(_ input: [Float], shape: FeatureMapShape, kernel: (Int, Int), stride: (Int, Int), ceilMode: Bool) -> (values: [Float], shape: FeatureMapShape) {
        // Window i starts at i * s; it counts while it starts inside the input and (floor mode)
        // fits entirely, or (ceil mode) i <= ceil((n - k) / s), i.e. i * s <= n - k + s - 1.
        func size(_ n: Int, _ k: Int, _ s: Int) -> Int {
            var out = 0
            while out * s < n && out * s <= n - k + (ceilMode ? s - 1 : 0) { out += 1 }
            return out
        }
        let out = FeatureMapShape(height: size(shape.height, kernel.0, stride.0), width: size(shape.width, kernel.1, stride.1), channels: shape.channels)
        var result = [Float](repeating: -.infinity, count: out.elementCount)
        for oy in 0..<out.height { for ox in 0..<out.width { for c in 0..<shape.channels {
            var best = -Float.infinity
            for y in (oy * stride.0)..<(oy * stride.0 + kernel.0) where y < shape.height {
                for x in (ox * stride.1)..<(ox * stride.1 + kernel.1) where x < shape.width {
                    best = max(best, input[(y * shape.width + x) * shape.channels + c])
                }
            }
            result[(oy * out.width + ox) * shape.channels + c] = best
        } } }
        return (result, out)
    }

    /// Softmax over the channels of each pixel.
    static func softmax(_ input: [Float], channels: Int) -> [Float] {
        stride(from: 0, to: input.count, by: channels).flatMap { softmax(Array(input[$0..<($0 + channels)])) }
    }

    static func softmax(_ input: [Float]) -> [Float] {
        let largest = input.max() ?? 0
        let exps = input.map { Double(exp(Double($0 - largest))) }
        let sum = exps.reduce(0, +)
        return exps.map { Float($0 / sum) }
    }

    /// TensorFlow's bilinear resize, one output value at a time: sample position per axis
    /// (`(d + 0.5) * in / out - 0.5` with half-pixel centers, `d * (in - 1) / (out - 1)` with
    /// aligned corners, else `d * in / out`), the four clamped neighbours, weights in Double.
    static func resizeBilinear(
        _ input: [Float], shape: FeatureMapShape, height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool
    ) -> (values: [Float], shape: FeatureMapShape) {
        let out = FeatureMapShape(height: height, width: width, channels: shape.channels)
        func position(_ d: Int, _ n: Int, _ m: Int) -> Double {
            let scale = Double(Float(alignCorners && m > 1 ? Float(n - 1) / Float(m - 1) : Float(n) / Float(m)))
            return halfPixelCenters ? (Double(d) + 0.5) * scale - 0.5 : Double(d) * scale
        }
        func at(_ y: Int, _ x: Int, _ c: Int) -> Double {
            let cy = min(max(y, 0), shape.height - 1), cx = min(max(x, 0), shape.width - 1)
            return Double(input[(cy * shape.width + cx) * shape.channels + c])
        }
        var result = [Float](repeating: 0, count: out.elementCount)
        for oy in 0..<height { for ox in 0..<width { for c in 0..<shape.channels {
            let sy = position(oy, shape.height, height), sx = position(ox, shape.width, width)
            let y0 = Int(sy.rounded(.down)), x0 = Int(sx.rounded(.down))
            let fy = sy - Double(y0), fx = sx - Double(x0)
            let value = at(y0, x0, c) * (1 - fy) * (1 - fx) + at(y0, x0 + 1, c) * (1 - fy) * fx
                + at(y0 + 1, x0, c) * fy * (1 - fx) + at(y0 + 1, x0 + 1, c) * fy * fx
            result[(oy * width + ox) * shape.channels + c] = Float(value)
        } } }
        return (result, out)
    }

    /// TensorFlow's `depth_to_space` on NHWC, one output value at a time: output (y, x, c) is
    /// input (y / b, x / b, ((y % b) * b + x % b) * C + c) with C the output channel count.
    static func depthToSpace(_ input: [Float], shape: FeatureMapShape, blockSize b: Int) -> (values: [Float], shape: FeatureMapShape) {
        let out = FeatureMapShape(height: shape.height * b, width: shape.width * b, channels: shape.channels / (b * b))
        var result = [Float](repeating: 0, count: out.elementCount)
        for y in 0..<out.height { for x in 0..<out.width { for c in 0..<out.channels {
            let channel = ((y % b) * b + x % b) * out.channels + c
            result[(y * out.width + x) * out.channels + c] = input[((y / b) * shape.width + x / b) * shape.channels + channel]
        } } }
        return (result, out)
    }
}
