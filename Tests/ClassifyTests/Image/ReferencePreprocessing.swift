@testable import Classify

/// The plain, obviously correct version of `Preprocessor`, used only to check the fast path:
/// resize the whole image (horizontal pass, then vertical pass, in Double), then crop the
/// centre and normalise. No shortcuts, no reuse, no pointer arithmetic.
enum ReferencePreprocessing {
    static func tensor(pixels: [UInt8], width: Int, height: Int) -> [Float] {
        let (resizedWidth, resizedHeight) = resizedSize(width: width, height: height)
        let source = pixels.map(Double.init)
        let wide = resizeRows(source, width: width, height: height, to: resizedWidth)
        let resized = resizeColumns(wide, width: resizedWidth, height: height, to: resizedHeight)
        let side = 224
        let left = (resizedWidth - side) / 2, top = (resizedHeight - side) / 2
        var output: [Float] = []
        for y in top..<top + side {
            for x in left..<left + side {
                for channel in 0..<3 {
                    let value = resized[(y * resizedWidth + x) * 3 + channel]
                    output.append(Float((value - 127) / 128))
                }
            }
        }
        return output
    }

    static func resizedSize(width: Int, height: Int) -> (Int, Int) {
        if width <= height {
            return (256, Int((Double(height) * 256 / Double(width)).rounded()))
        }
        return (Int((Double(width) * 256 / Double(height)).rounded()), 256)
    }

    /// Triangle weights for every output sample: support 1 when enlarging, `scale` when shrinking.
    static func weights(input: Int, output: Int) -> [[(index: Int, weight: Double)]] {
        let scale = Double(input) / Double(output)
        let stretch = max(scale, 1)
        return (0..<output).map { i in
            let center = (Double(i) + 0.5) * scale
            var taps: [(index: Int, weight: Double)] = []
            for j in 0..<input {
                let weight = max(0, 1 - abs((Double(j) + 0.5 - center) / stretch))
                if weight > 0 { taps.append((j, weight)) }
            }
            let total = taps.reduce(0) { $0 + $1.weight }
            return taps.map { ($0.index, $0.weight / total) }
        }
    }

    static func resizeRows(_ pixels: [Double], width: Int, height: Int, to newWidth: Int) -> [Double] {
        let table = weights(input: width, output: newWidth)
        var result = [Double](repeating: 0, count: newWidth * height * 3)
        for y in 0..<height {
            for x in 0..<newWidth {
                for channel in 0..<3 {
                    result[(y * newWidth + x) * 3 + channel] = table[x].reduce(0) {
                        $0 + $1.weight * pixels[(y * width + $1.index) * 3 + channel]
                    }
                }
            }
        }
        return result
    }

    static func resizeColumns(_ pixels: [Double], width: Int, height: Int, to newHeight: Int) -> [Double] {
        let table = weights(input: height, output: newHeight)
        var result = [Double](repeating: 0, count: width * newHeight * 3)
        for y in 0..<newHeight {
            for x in 0..<width {
                for channel in 0..<3 {
                    result[(y * width + x) * 3 + channel] = table[y].reduce(0) {
                        $0 + $1.weight * pixels[($1.index * width + x) * 3 + channel]
                    }
                }
            }
        }
        return result
    }
}
