/// An image's feature print: the network's pooled features, L2-normalized, so images that look
/// alike have prints that are close. Shaped like Vision's `FeaturePrintObservation`.
///
/// ```swift
/// let a = try classifier.classify(contentsOf: first).featurePrint
/// let b = try classifier.classify(contentsOf: second).featurePrint
/// print(try a.distance(to: b))        // 0 for identical content, up to 2
/// ```
public struct FeaturePrintObservation: Sendable, Hashable, Codable {
    /// The normalized vector (1280 values for EfficientNet-Lite0).
    public var values: [Float]

    /// Normalizes `features` to unit length (a zero vector stays zero).
    public init(features: [Float]) {
        var sumOfSquares: Float = 0
        for value in features { sumOfSquares += value * value }
        let scale = sumOfSquares > 0 ? 1 / sumOfSquares.squareRoot() : 0
        values = features.map { $0 * scale }
    }

    /// Wraps an already-normalized vector (for example one read back from an index).
    public init(normalizedValues: [Float]) { values = normalizedValues }

    /// Number of values.
    public var elementCount: Int { values.count }

    /// Why two prints cannot be compared.
    public struct MismatchError: Error, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Euclidean distance between the two unit vectors, in 0...2.
    public func distance(to other: FeaturePrintObservation) throws(MismatchError) -> Float {
        let similarity = try cosineSimilarity(to: other)
        return max(0, 2 - 2 * similarity).squareRoot()
    }

    /// Cosine similarity, in -1...1 (1 for identical content).
    public func cosineSimilarity(to other: FeaturePrintObservation) throws(MismatchError) -> Float {
        guard values.count == other.values.count else {
            throw MismatchError(description: "feature prints have \(values.count) and \(other.values.count) values; they come from different models")
        }
        var dot: Float = 0
        for index in values.indices { dot += values[index] * other.values[index] }
        return min(1, max(-1, dot))
    }
}
