/// Resampling weights along one axis for an antialiased triangle (bilinear) filter, computed
/// only for the output positions that are kept (the centre crop).
///
/// Output sample `i` is centred on source coordinate `(i + 0.5) * scale` with
/// `scale = input / output`. When shrinking, the triangle is stretched by `scale` so every
/// source pixel under the output pixel contributes (this is what makes it antialiased, and is
/// the same construction as Pillow's BILINEAR resize); when enlarging, it keeps its natural
/// support of 1. Weights are normalised to sum to 1.
struct TriangleFilterTaps: Sendable {
    /// First source index read by each kept output sample.
    private(set) var firstSource: [Int] = []
    /// Number of source samples read by each kept output sample.
    private(set) var tapCounts: [Int] = []
    /// Weights, `stride` per kept output sample (only the first `tapCounts[i]` are used).
    private(set) var weights: [Float] = []
    private(set) var stride = 0
    /// Source indices touched by any kept output sample.
    private(set) var sourceRange: Range<Int> = 0..<0

    /// Recomputes the taps, reusing the arrays' storage.
    mutating func compute(inputLength: Int, outputLength: Int, keptOutputs: Range<Int>) {
        precondition(inputLength > 0 && outputLength > 0)
        precondition(keptOutputs.lowerBound >= 0 && keptOutputs.upperBound <= outputLength)
        let scale = Double(inputLength) / Double(outputLength)
        let stretch = max(scale, 1)
        let support = stretch  // the triangle's radius is 1 before stretching
        stride = Int(support.rounded(.up)) * 2 + 1
        firstSource.removeAll(keepingCapacity: true)
        tapCounts.removeAll(keepingCapacity: true)
        weights.removeAll(keepingCapacity: true)
        weights.reserveCapacity(keptOutputs.count * stride)
        var lowest = inputLength, highest = 0
        for output in keptOutputs {
            let center = (Double(output) + 0.5) * scale
            let first = max(Int((center - support + 0.5).rounded(.down)), 0)
            let end = min(Int((center + support + 0.5).rounded(.down)), inputLength)
            assert(end - first <= stride)
            // Source pixel j is sampled at its centre j + 0.5.
            func weight(_ source: Int) -> Double {
                max(0, 1 - abs((Double(source) + 0.5 - center) / stretch))
            }
            var total = 0.0
            for source in first..<end { total += weight(source) }
            let row = weights.count
            weights.append(contentsOf: repeatElement(0, count: stride))
            for source in first..<end where total > 0 {
                weights[row + source - first] = Float(weight(source) / total)
            }
            firstSource.append(first)
            tapCounts.append(end - first)
            lowest = min(lowest, first)
            highest = max(highest, end)
        }
        sourceRange = lowest..<max(lowest, highest)
    }
}
