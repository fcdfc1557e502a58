extension DecodedImage {
    /// A copy whose longer side is at most `maximumLongSide` pixels, aspect ratio kept, resampled
    /// with the same antialiased triangle filter as ``Preprocessor`` (every source pixel under an
    /// output pixel contributes, so fine detail does not alias); `self` when it already fits.
    ///
    /// Pair it with DCT-scaled decoding, which does most of the reduction for free:
    /// ```swift
    /// let image = try ImageDecoder().decode(contentsOf: url, minimumShortSide: 240)
    /// let thumbnail = image.downscaled(toFit: 320)
    /// ```
    public func downscaled(toFit maximumLongSide: Int) -> DecodedImage {
        precondition(maximumLongSide > 0, "the long side must be at least one pixel")
        let long = max(width, height)
        guard long > maximumLongSide else { return self }
        let scale = Double(maximumLongSide) / Double(long)
        let outputWidth = max(1, Int((Double(width) * scale).rounded()))
        let outputHeight = max(1, Int((Double(height) * scale).rounded()))
        var columnTaps = TriangleFilterTaps(), rowTaps = TriangleFilterTaps()
        columnTaps.compute(inputLength: width, outputLength: outputWidth, keptOutputs: 0..<outputWidth)
        rowTaps.compute(inputLength: height, outputLength: outputHeight, keptOutputs: 0..<outputHeight)
        let sourceWidth = width
        var filteredRow = [Float](repeating: 0, count: sourceWidth * 3)
        let resized = [UInt8](unsafeUninitializedCapacity: outputWidth * outputHeight * 3) { output, initialized in
            pixels.withUnsafeBufferPointer { source in
                filteredRow.withUnsafeMutableBufferPointer { row in
                    for y in 0..<outputHeight {
                        // Vertical pass: the weighted source rows under output row y.
                        row.update(repeating: 0)
                        let firstRow = rowTaps.firstSource[y]
                        for tap in 0..<rowTaps.tapCounts[y] {
                            let weight = rowTaps.weights[y * rowTaps.stride + tap]
                            if weight == 0 { continue }
                            let sourceRow = source.baseAddress! + (firstRow + tap) * sourceWidth * 3
                            for i in 0..<sourceWidth * 3 { row[i] += weight * Float(sourceRow[i]) }
                        }
                        // Horizontal pass, rounded and clamped to bytes.
                        for x in 0..<outputWidth {
                            var red: Float = 0, green: Float = 0, blue: Float = 0
                            let first = columnTaps.firstSource[x]
                            for tap in 0..<columnTaps.tapCounts[x] {
                                let weight = columnTaps.weights[x * columnTaps.stride + tap]
                                let pixel = (first + tap) * 3
                                red += weight * row[pixel]
                                green += weight * row[pixel + 1]
                                blue += weight * row[pixel + 2]
                            }
                            let target = (y * outputWidth + x) * 3
                            output[target] = Self.byte(red)
                            output[target + 1] = Self.byte(green)
                            output[target + 2] = Self.byte(blue)
                        }
                    }
                }
            }
            initialized = outputWidth * outputHeight * 3
        }
        return DecodedImage(
            width: outputWidth, height: outputHeight, pixels: resized, format: format,
            originalWidth: originalWidth, originalHeight: originalHeight, decodeScale: decodeScale,
            metadata: metadata)
    }

    @inline(__always)
    private static func byte(_ value: Float) -> UInt8 {
        UInt8(min(255, max(0, value.rounded())))
    }
}
