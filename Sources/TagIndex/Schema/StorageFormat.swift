/// How confidences and times are stored.
///
/// Confidences are stored as integers in 0...10_000 (1e-4 resolution): SQLite
/// stores such an integer in 2 bytes instead of 8 for a REAL, which keeps the
/// ~10 observation rows per image and their indexes small. Thresholds are
/// quantized the same way, so `confidence >= threshold` is decided at 1e-4
/// resolution.
///
/// Times are stored as integer microseconds since 1970, the resolution at which
/// modification times are compared.
package enum StorageFormat {
    /// Quantization scale of confidences.
    static let confidenceScale = 10_000.0
    /// Above every stored score: an AND takes the MIN of its operands' scores with an unscored
    /// operand (a group of negations) standing in as this, and a MIN still equal to it means none
    /// was scored.
    package static let unscoredMarker = 10_001

    /// Observations below this confidence are not stored.
    ///
    /// 0.01 is 10x the uniform prior of a 1000-class softmax (0.001): below it a
    /// confidence is noise, and the high-recall calibrated thresholds measured on
    /// ImageNet-style curves sit above it. Stored rows then average ~10 per image
    /// (leaves and their parents), so every threshold a user can pick at query time
    /// (0.01 or higher) is answered without re-indexing.
    static let storageFloor = 0.01
    package static let floorQuantized = quantize(storageFloor)

    /// Confidence in 0...1 -> stored integer.
    package static func quantize(_ confidence: Double) -> Int {
        guard confidence.isFinite else { return confidence > 0 ? 10_000 : 0 }
        return Int((min(max(confidence, 0), 1) * confidenceScale).rounded())
    }

    /// Stored integer -> confidence in 0...1.
    package static func confidence(_ stored: Int) -> Double { Double(stored) / confidenceScale }

    /// A threshold as a stored integer, never below the floor.
    package static func threshold(_ value: Double?) -> Int { max(quantize(value ?? 0), floorQuantized) }
}
