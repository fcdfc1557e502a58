/// Turns a decoded image into the classifier's input tensor: NHWC 1x224x224x3 Float values
/// `(pixel - 127) / 128`, taken from the centre of the image resized so its short side is 256.
///
/// The resize uses an antialiased triangle (bilinear) filter whose support widens with the
/// downscale factor, the same kind of filter as Pillow's `Image.resize(..., BILINEAR)`: every
/// source pixel under an output pixel contributes, so large photos do not alias. Images with a
/// short side under 256 are enlarged with the plain triangle (support 1). The long side becomes
/// `round(long * 256 / short)` (halves round away from zero); the 224 crop starts at
/// `(side - 224) / 2`, rounded down. Unlike Pillow, intermediate values stay in Float instead
/// of being rounded to 8 bits between the two passes.
///
/// The resize is separable and computes only the rows and columns that survive the crop:
/// first a vertical pass per kept output row (over the kept source columns only), then a
/// horizontal pass for the 224 kept columns, writing straight into the caller's buffer. The
/// only memory it keeps is reusable scratch, so reuse one `Preprocessor` per task.
///
/// Usage:
/// ```swift
/// var preprocessor = Preprocessor()
/// var input = [Float](repeating: 0, count: Preprocessor.outputCount)
/// input.withUnsafeMutableBufferPointer { preprocessor.preprocess(image, into: $0) }
/// ```
package struct Preprocessor: Sendable {
    /// Short side of the resized image before cropping.
    /// Usage: `ImageDecoder().decode(data, minimumShortSide: Preprocessor.resizedShortSide)`
    package static let resizedShortSide = 256
    /// Side of the square centre crop, which is the model's input size.
    /// Usage: `let shape = [1, Preprocessor.cropSide, Preprocessor.cropSide, 3]`
    package static let cropSide = 224
    /// Floats written per image: 224 * 224 * 3.
    /// Usage: `var input = [Float](repeating: 0, count: Preprocessor.outputCount)`
    package static let outputCount = cropSide * cropSide * 3

    private var columnTaps = TriangleFilterTaps()
    private var rowTaps = TriangleFilterTaps()
    /// One vertically filtered row of the kept source columns, RGB interleaved.
    private var filteredRow: [Float] = []

    /// Creates a preprocessor with empty scratch; it grows on first use and is then reused.
    ///
    /// Usage: `var preprocessor = Preprocessor()`
    package init() {}

    /// Size of the image after resizing its short side to 256 (before the crop).
    ///
    /// Usage: `Preprocessor.resizedSize(width: 1000, height: 500)  // (512, 256)`
    package static func resizedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        precondition(width > 0 && height > 0)
        let short = min(width, height), long = max(width, height)
        let resizedLong = Int(
            (Double(long) * Double(resizedShortSide) / Double(short)).rounded(.toNearestOrAwayFromZero))
        return width <= height
            ? (resizedShortSide, resizedLong) : (resizedLong, resizedShortSide)
    }

    /// Writes the 224x224x3 tensor for `image` into `output`, which must hold at least
    /// `Preprocessor.outputCount` floats.
    ///
    /// Usage: `input.withUnsafeMutableBufferPointer { preprocessor.preprocess(image, into: $0) }`
    package mutating func preprocess(_ image: DecodedImage, into output: UnsafeMutableBufferPointer<Float>) {
        image.pixels.withUnsafeBufferPointer { pixels in
            preprocess(pixels: pixels, width: image.width, height: image.height, into: output)
        }
    }

    /// Returns a new array holding the 224x224x3 tensor for `image`.
    ///
    /// Usage: `let input = preprocessor.preprocess(image)`
    package mutating func preprocess(_ image: DecodedImage) -> [Float] {
        [Float](unsafeUninitializedCapacity: Self.outputCount) { buffer, count in
            preprocess(image, into: buffer)
            count = Self.outputCount
        }
    }

    mutating func preprocess(
        pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int,
        into output: UnsafeMutableBufferPointer<Float>
    ) {
        precondition(pixels.count >= width * height * 3, "pixels must hold width * height RGB triples")
        precondition(output.count >= Self.outputCount, "output must hold Preprocessor.outputCount floats")
        let side = Self.cropSide
        let resized = Self.resizedSize(width: width, height: height)
        let left = (resized.width - side) / 2, top = (resized.height - side) / 2
        columnTaps.compute(inputLength: width, outputLength: resized.width, keptOutputs: left..<left + side)
        rowTaps.compute(inputLength: height, outputLength: resized.height, keptOutputs: top..<top + side)

        let columns = columnTaps.sourceRange
        let rowLength = columns.count * 3
        if filteredRow.count < rowLength {
            filteredRow = [Float](repeating: 0, count: rowLength)
        }
        let rowTaps = self.rowTaps, columnTaps = self.columnTaps
        filteredRow.withUnsafeMutableBufferPointer { row in
            for y in 0..<side {
                Self.filterVertically(
                    pixels: pixels, width: width, outputRow: y, taps: rowTaps,
                    columns: columns, into: row.baseAddress!)
                Self.filterHorizontally(
                    row: UnsafePointer(row.baseAddress!), firstColumn: columns.lowerBound,
                    taps: columnTaps, into: output.baseAddress! + y * side * 3)
            }
        }
    }

    /// Weighted sum of the source rows under kept output row `outputRow`, over `columns`.
    @inline(__always)
    private static func filterVertically(
        pixels: UnsafeBufferPointer<UInt8>, width: Int, outputRow: Int, taps: TriangleFilterTaps,
        columns: Range<Int>, into row: UnsafeMutablePointer<Float>
    ) {
        let length = columns.count * 3
        row.update(repeating: 0, count: length)
        let first = taps.firstSource[outputRow], count = taps.tapCounts[outputRow]
        taps.weights.withUnsafeBufferPointer { weights in
            let rowWeights = weights.baseAddress! + outputRow * taps.stride
            for tap in 0..<count {
                let weight = rowWeights[tap]
                if weight == 0 { continue }
                let source = pixels.baseAddress! + ((first + tap) * width + columns.lowerBound) * 3
                // Contiguous, branch-free: the compiler vectorises this loop.
                for i in 0..<length {
                    row[i] += weight * Float(source[i])
                }
            }
        }
    }

    /// Horizontal pass over one filtered row, normalised and written as 224 RGB floats.
    @inline(__always)
    private static func filterHorizontally(
        row: UnsafePointer<Float>, firstColumn: Int, taps: TriangleFilterTaps,
        into output: UnsafeMutablePointer<Float>
    ) {
        let scale: Float = 1.0 / 128.0, mean: Float = 127
        taps.weights.withUnsafeBufferPointer { weights in
            taps.firstSource.withUnsafeBufferPointer { firstSources in
                taps.tapCounts.withUnsafeBufferPointer { counts in
                    for x in 0..<cropSide {
                        let columnWeights = weights.baseAddress! + x * taps.stride
                        var input = row + (firstSources[x] - firstColumn) * 3
                        var red: Float = 0, green: Float = 0, blue: Float = 0
                        for tap in 0..<counts[x] {
                            let weight = columnWeights[tap]
                            red += weight * input[0]
                            green += weight * input[1]
                            blue += weight * input[2]
                            input += 3
                        }
                        output[x * 3] = (red - mean) * scale
                        output[x * 3 + 1] = (green - mean) * scale
                        output[x * 3 + 2] = (blue - mean) * scale
                    }
                }
            }
        }
    }
}
