/// Area resampling of a region of an 8-bit RGB image to a float NHWC tensor, normalized as
/// `(value - mean) / std`: PyTorch's `interpolate(mode="area")`, which is adaptive average
/// pooling. Output row i averages source rows `floor(i * h / oh) ..< ceil((i + 1) * h / oh)`
/// (likewise for columns), so windows overlap when the sizes do not divide. This is the
/// resampling facenet-pytorch's MTCNN uses for the pyramid levels and the 24x24 / 48x48 crops.
///
/// Separable: a vertical pass into `rows` floats, then a horizontal pass; the mean of a
/// rectangle is the mean of its row means because every window weight is uniform.
struct AreaResampling {
    let mean: (Float, Float, Float)
    let scale: (Float, Float, Float)

    init(mean: [Float], std: [Float]) {
        self.mean = (mean[0], mean[1], mean[2])
        scale = (1 / std[0], 1 / std[1], 1 / std[2])
    }

    /// Source window of output index i when n source samples become m.
    @inline(__always)
    static func window(_ i: Int, source n: Int, output m: Int) -> Range<Int> {
        (i * n / m)..<((i + 1) * n + m - 1) / m
    }

    /// Resamples the region `x0..<x0+w, y0..<y0+h` of `pixels` (RGB, `stride` pixels a row) to
    /// `outHeight x outWidth x 3` floats at `output`.
    func resample(
        _ pixels: UnsafeBufferPointer<UInt8>, stride: Int, x0: Int, y0: Int, width w: Int, height h: Int,
        outWidth: Int, outHeight: Int, into output: UnsafeMutablePointer<Float>
    ) {
        var rows = [Float](repeating: 0, count: w * 3)
        rows.withUnsafeMutableBufferPointer { rows in
            for oy in 0..<outHeight {
                let window = Self.window(oy, source: h, output: outHeight)
                for i in 0..<(w * 3) { rows[i] = 0 }
                for y in window {
                    let row = (y0 + y) * stride * 3 + x0 * 3
                    for i in 0..<(w * 3) { rows[i] += Float(pixels[row + i]) }
                }
                let inverseRows = 1 / Float(window.count)
                for ox in 0..<outWidth {
                    let columns = Self.window(ox, source: w, output: outWidth)
                    var r: Float = 0, g: Float = 0, b: Float = 0
                    for x in columns { r += rows[x * 3]; g += rows[x * 3 + 1]; b += rows[x * 3 + 2] }
                    let inverse = inverseRows / Float(columns.count)
                    let out = output + (oy * outWidth + ox) * 3
                    out[0] = (r * inverse - mean.0) * scale.0
                    out[1] = (g * inverse - mean.1) * scale.1
                    out[2] = (b * inverse - mean.2) * scale.2
                }
            }
        }
    }
}
