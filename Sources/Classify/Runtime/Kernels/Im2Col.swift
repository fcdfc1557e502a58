/// Unfolds convolution windows of an NHWC map into rows: row p (an output pixel) holds the
/// window's taps in (kernelY, kernelX, channel) order, zero where the window hangs over the edge.
/// Used for the convolutions that are neither pointwise, depthwise nor direct (dlib's ResNet from
/// 128 channels, MTCNN's widest layers); the rows then go through the packed GEMM.
enum Im2Col {
    /// One position of the kernel window.
    struct Tap: Sendable, Hashable {
        var y: Int, x: Int
    }

    /// The taps that some output pixel reads inside the input, in (y, x) order. A tap row no
    /// output row reaches inside the input (or a column likewise) reads only padding, so it adds
    /// nothing and is left out: a 3x3 "same" convolution of a 1x1 map keeps its center alone.
    static func taps(
        input: FeatureMapShape, kernel: (height: Int, width: Int), stride: (height: Int, width: Int), padding: Padding, output: FeatureMapShape
    ) -> [Tap] {
        func used(_ k: Int, stride: Int, before: Int, inputLength: Int, outputLength: Int) -> Bool {
            (0..<outputLength).contains { o in (0..<inputLength).contains(o * stride + k - before) }
        }
        let rows = (0..<kernel.height).filter { used($0, stride: stride.height, before: padding.top, inputLength: input.height, outputLength: output.height) }
        let columns = (0..<kernel.width).filter { used($0, stride: stride.width, before: padding.left, inputLength: input.width, outputLength: output.width) }
        return rows.flatMap { y in columns.map { x in Tap(y: y, x: x) } }
    }

    /// Writes one row of `taps.count * channelCount` values per output pixel into `rows`.
    static func gather(
        input: UnsafePointer<Float>, shape: FeatureMapShape, channelOffset: Int, channelCount: Int,
        taps: [Tap], stride: (height: Int, width: Int), padding: Padding,
        output: FeatureMapShape, into rows: UnsafeMutablePointer<Float>
    ) {
        let rowLength = taps.count * channelCount
        for oy in 0..<output.height {
            for ox in 0..<output.width {
                var cursor = rows + (oy * output.width + ox) * rowLength
                for tap in taps {
                    let iy = oy * stride.height + tap.y - padding.top, ix = ox * stride.width + tap.x - padding.left
                    if iy >= 0, iy < shape.height, ix >= 0, ix < shape.width {
                        cursor.update(from: input + (iy * shape.width + ix) * shape.channels + channelOffset, count: channelCount)
                    } else {
                        cursor.update(repeating: 0, count: channelCount)
                    }
                    cursor += channelCount
                }
            }
        }
    }
}
