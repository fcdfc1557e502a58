/// Unfolds convolution windows of an NHWC map into rows: row p (an output pixel) holds the
/// window's taps in (kernelY, kernelX, channel) order, zero where the window hangs over the edge.
/// Only used for the few convolutions that are neither pointwise nor depthwise (the stem).
enum Im2Col {
    static func gather(
        input: UnsafePointer<Float>, shape: FeatureMapShape, channelOffset: Int, channelCount: Int,
        kernel: (height: Int, width: Int), stride: (height: Int, width: Int), padding: Padding,
        output: FeatureMapShape, into rows: UnsafeMutablePointer<Float>
    ) {
        let rowLength = kernel.height * kernel.width * channelCount
        for oy in 0..<output.height {
            for ox in 0..<output.width {
                var cursor = rows + (oy * output.width + ox) * rowLength
                for ky in 0..<kernel.height {
                    let iy = oy * stride.height + ky - padding.top
                    for kx in 0..<kernel.width {
                        let ix = ox * stride.width + kx - padding.left
                        if iy >= 0, iy < shape.height, ix >= 0, ix < shape.width {
                            let source = input + (iy * shape.width + ix) * shape.channels + channelOffset
                            cursor.update(from: source, count: channelCount)
                        } else {
                            cursor.update(repeating: 0, count: channelCount)
                        }
                        cursor += channelCount
                    }
                }
            }
        }
    }
}
