/// Applies an EXIF orientation to interleaved RGB pixels so the result is upright.
enum OrientationTransform {
    /// Returns `pixels` (a `width` x `height` RGB image) transformed by `orientation`, with the
    /// resulting dimensions (swapped for orientations 5...8).
    static func apply(
        _ orientation: ImageOrientation, to pixels: [UInt8], width: Int, height: Int
    ) -> (pixels: [UInt8], width: Int, height: Int) {
        if orientation == .identity { return (pixels, width, height) }
        let (outputWidth, outputHeight) =
            orientation.swapsDimensions ? (height, width) : (width, height)
        // Output pixel (x, y) comes from source pixel index start + x * xStep + y * yStep;
        // the table follows from where each orientation puts the stored image's corners.
        let last = width - 1, bottomRow = (height - 1) * width
        let (start, xStep, yStep): (Int, Int, Int) =
            switch orientation {
            case .identity: (0, 1, width)
            case .flipHorizontal: (last, -1, width)
            case .rotate180: (bottomRow + last, -1, -width)
            case .flipVertical: (bottomRow, 1, -width)
            case .transpose: (0, width, 1)
            case .rotate90Clockwise: (bottomRow, -width, 1)
            case .transverse: (bottomRow + last, -width, -1)
            case .rotate90CounterClockwise: (last, width, -1)
            }
        let transformed = [UInt8](unsafeUninitializedCapacity: pixels.count) { output, count in
            pixels.withUnsafeBufferPointer { source in
                var destination = 0
                for y in 0..<outputHeight {
                    var sourcePixel = start + y * yStep
                    for _ in 0..<outputWidth {
                        let offset = sourcePixel * 3
                        output[destination] = source[offset]
                        output[destination + 1] = source[offset + 1]
                        output[destination + 2] = source[offset + 2]
                        destination += 3
                        sourcePixel += xStep
                    }
                }
            }
            count = pixels.count
        }
        return (transformed, outputWidth, outputHeight)
    }
}
