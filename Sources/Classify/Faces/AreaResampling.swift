import CClassifyKernels

/// Area resampling of regions of one 8-bit RGB image to float NHWC tensors, normalized as
/// `(value - mean) / std`: PyTorch's `interpolate(mode="area")`, which is adaptive average
/// pooling. Output row i averages source rows `floor(i * h / oh) ..< ceil((i + 1) * h / oh)`
/// (likewise for columns), so windows overlap when the sizes do not divide. This is the
/// resampling facenet-pytorch's MTCNN uses for the pyramid levels and the 24x24 / 48x48 crops.
///
/// Built once per image as a summed-area table (per channel, the sum of every pixel above and
/// to the left, in exact integers), after which any rectangle's mean is four lookups: every
/// pyramid level and every crop costs its output size, not the source's. Without the table each
/// level would read the whole image again. The table is `(width + 1) * (height + 1) * 3`
/// 32-bit integers, added with wrapping: an image over 16.8 million pixels wraps its entries, and
/// a window's sum (four entries added and subtracted, wrapping again) is still exact while the
/// window holds at most 2^32 / 255 pixels (``windowsFit(width:height:outWidth:outHeight:)``, which
/// both resampling paths require). The callers' windows stay far below: MTCNN's levels and crops
/// are at least 12 pixels a side, and BlazeFace's letterbox keeps a window of a 100-megapixel photo
/// of any shape under 700,000 pixels.
final class AreaResampling {
    let width: Int
    let height: Int
    private let mean: (Float, Float, Float)
    private let scale: (Float, Float, Float)
    /// `table[((y * (width + 1)) + x) * 3 + c]` = sum of channel c over rows `0..<y`, columns `0..<x`.
    private let table: UnsafeMutablePointer<UInt32>

    /// - Parameter pixels: RGB, `width * height * 3` bytes, rows packed.
    init(_ pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, mean: [Float], std: [Float]) {
        precondition(pixels.count >= width * height * 3 && width >= 0 && height >= 0)
        self.width = width
        self.height = height
        self.mean = (mean[0], mean[1], mean[2])
        scale = (1 / std[0], 1 / std[1], 1 / std[2])
        let rowLength = (width + 1) * 3
        table = .allocate(capacity: rowLength * (height + 1))
        table.update(repeating: 0, count: rowLength)
        let source = pixels.baseAddress!
        for y in 0..<height {
            let above = table + y * rowLength, row = table + (y + 1) * rowLength
            row[0] = 0; row[1] = 0; row[2] = 0
            var r: UInt32 = 0, g: UInt32 = 0, b: UInt32 = 0
            let line = source + y * width * 3
            for x in 0..<width {
                r &+= UInt32(line[x * 3]); g &+= UInt32(line[x * 3 + 1]); b &+= UInt32(line[x * 3 + 2])
                let at = (x + 1) * 3
                row[at] = above[at] &+ r
                row[at + 1] = above[at + 1] &+ g
                row[at + 2] = above[at + 2] &+ b
            }
        }
    }

    deinit { table.deallocate() }

    /// Whether every window of a `width x height` region resampled to `outWidth x outHeight`
    /// holds at most 2^32 / 255 pixels, so that its 8-bit channel sums fit 32 bits.
    ///
    /// Usage: `precondition(AreaResampling.windowsFit(width: w, height: h, outWidth: 192, outHeight: 144))`
    static func windowsFit(width w: Int, height h: Int, outWidth: Int, outHeight: Int) -> Bool {
        // A window spans at most ceil(n / m) + 1 samples of n; the sides are image sizes, so the product fits.
        let columns = (w + outWidth - 1) / outWidth + 1, rows = (h + outHeight - 1) / outHeight + 1
        return columns * rows <= Int(UInt32.max) / 255
    }

    /// Source window of output index i when n source samples become m.
    @inline(__always)
    static func window(_ i: Int, source n: Int, output m: Int) -> Range<Int> {
        (i * n / m)..<((i + 1) * n + m - 1) / m
    }

    /// Resamples the region `x0..<x0+w, y0..<y0+h` (inside the image) to
    /// `outHeight x outWidth x 3` floats at `output`, whose rows start `rowStride` floats apart
    /// (default `outWidth * 3`, packed; wider to write into a larger map, as letterboxing does).
    func resample(x0: Int, y0: Int, width w: Int, height h: Int, outWidth: Int, outHeight: Int, into output: UnsafeMutablePointer<Float>, rowStride: Int? = nil) {
        precondition(x0 >= 0 && y0 >= 0 && w > 0 && h > 0 && x0 + w <= width && y0 + h <= height)
        precondition(outWidth > 0 && outHeight > 0 && Self.windowsFit(width: w, height: h, outWidth: outWidth, outHeight: outHeight))
        let rowStride = rowStride ?? outWidth * 3
        precondition(rowStride >= outWidth * 3)
        let rowLength = (width + 1) * 3
        // Column windows as table offsets, and 1 / column count, once per call.
        var columns = [(left: Int, right: Int, inverse: Float)]()
        columns.reserveCapacity(outWidth)
        for ox in 0..<outWidth {
            let window = Self.window(ox, source: w, output: outWidth)
            columns.append(((x0 + window.lowerBound) * 3, (x0 + window.upperBound) * 3, 1 / Float(window.count)))
        }
        columns.withUnsafeBufferPointer { columns in
            for oy in 0..<outHeight {
                var out = output + oy * rowStride
                let window = Self.window(oy, source: h, output: outHeight)
                let top = UnsafePointer(table + (y0 + window.lowerBound) * rowLength)
                let bottom = UnsafePointer(table + (y0 + window.upperBound) * rowLength)
                let inverseRows = 1 / Float(window.count)
                for column in columns {
                    let l = column.left, r = column.right
                    let inverse = inverseRows * column.inverse
                    let red = bottom[r] &- bottom[l] &- top[r] &+ top[l]
                    let green = bottom[r + 1] &- bottom[l + 1] &- top[r + 1] &+ top[l + 1]
                    let blue = bottom[r + 2] &- bottom[l + 2] &- top[r + 2] &+ top[l + 2]
                    Self.store((red, green, blue), inverse: inverse, mean: mean, scale: scale, at: out)
                    out += 3
                }
            }
        }
    }

    /// The same resampling of one region without a table, for an image resampled once (one view
    /// of BlazeFace): each output row adds its window's source rows into a row of per-column
    /// sums, and each output pixel adds its window's columns of that row (`cls_area_resample_rgb8`,
    /// vectorized). The integer sums are the table's and the normalization is the same arithmetic,
    /// so the output is identical; the work is about one pass over the region instead of building
    /// a table over the whole image and reading it back.
    ///
    /// Usage: `AreaResampling.resample(pixels, width: w, height: h, mean: m, std: s, x0: 0, y0: 0, width: w, height: h, outWidth: 192, outHeight: 144, into: out)`
    static func resample(
        _ pixels: UnsafeBufferPointer<UInt8>, width imageWidth: Int, height imageHeight: Int, mean: [Float], std: [Float],
        x0: Int, y0: Int, width w: Int, height h: Int, outWidth: Int, outHeight: Int, into output: UnsafeMutablePointer<Float>,
        rowStride: Int? = nil
    ) {
        precondition(pixels.count >= imageWidth * imageHeight * 3)
        precondition(x0 >= 0 && y0 >= 0 && w > 0 && h > 0 && x0 + w <= imageWidth && y0 + h <= imageHeight)
        precondition(outWidth > 0 && outHeight > 0 && windowsFit(width: w, height: h, outWidth: outWidth, outHeight: outHeight))
        let rowStride = rowStride ?? outWidth * 3
        precondition(rowStride >= outWidth * 3)
        let mean = [mean[0], mean[1], mean[2]], scale = [1 / std[0], 1 / std[1], 1 / std[2]]
        let scratch = UnsafeMutableRawPointer.allocate(
            byteCount: cls_area_resample_scratch_bytes(Int32(w), Int32(outWidth)), alignment: MemoryLayout<UInt32>.alignment)
        defer { scratch.deallocate() }
        cls_area_resample_rgb8(
            pixels.baseAddress!, Int32(imageWidth), Int32(x0), Int32(y0), Int32(w), Int32(h), Int32(outWidth), Int32(outHeight),
            mean, scale, output, rowStride, scratch)
    }

    /// One output pixel from its window's sums: the mean, normalized.
    @inline(__always)
    private static func store(_ sums: (UInt32, UInt32, UInt32), inverse: Float, mean: (Float, Float, Float), scale: (Float, Float, Float),
                              at out: UnsafeMutablePointer<Float>) {
        out[0] = (Float(sums.0) * inverse - mean.0) * scale.0
        out[1] = (Float(sums.1) * inverse - mean.1) * scale.1
        out[2] = (Float(sums.2) * inverse - mean.2) * scale.2
    }
}
