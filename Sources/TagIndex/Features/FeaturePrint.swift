/// The compact stored form of an image's pooled feature vector.
///
/// Format (column `images.feature_print`): ``dimension`` IEEE 754 binary16 values,
/// little-endian, 2 bytes each (2,560 bytes), of the L2-normalized vector.
/// Normalized components lie in -1...1 where fp16 keeps ~3 significant digits,
/// enough for cosine similarity (error < 1e-3) at a quarter of the float64 size.
/// Conversion is done in code (round to nearest even) rather than with `Float16`,
/// which is unavailable on some platforms.
///
/// ```swift
/// let blob = try FeaturePrint.encode(vector)      // 2,560 bytes
/// let restored = FeaturePrint.decode(blob)        // 1,280 floats, unit length
/// ```
public enum FeaturePrint {
    /// Number of values in a feature print.
    public static let dimension = 1280

    /// L2-normalizes `vector` and packs it as fp16.
    ///
    /// ```swift
    /// let blob = try FeaturePrint.encode(vector)
    /// ```
    public static func encode(_ vector: [Float]) throws -> [UInt8] {
        guard vector.count == dimension else {
            throw TagIndexError.invalidInput(
                "a feature print has \(dimension) values; got \(vector.count)")
        }
        guard vector.allSatisfy(\.isFinite) else {
            throw TagIndexError.invalidInput("a feature print contains a NaN or infinite value")
        }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        let scale: Float = norm > 0 ? 1 / norm : 0
        var bytes = [UInt8]()
        bytes.reserveCapacity(dimension * 2)
        for value in vector {
            let bits = halfBits(value * scale)
            bytes.append(UInt8(truncatingIfNeeded: bits))
            bytes.append(UInt8(truncatingIfNeeded: bits >> 8))
        }
        return bytes
    }

    /// Unpacks a stored feature print; nil when the blob has the wrong size.
    ///
    /// ```swift
    /// let vector = FeaturePrint.decode(blob)
    /// ```
    public static func decode(_ bytes: [UInt8]) -> [Float]? {
        guard bytes.count == dimension * 2 else { return nil }
        return (0..<dimension).map { index in
            float(fromHalfBits: UInt16(bytes[2 * index]) | UInt16(bytes[2 * index + 1]) << 8)
        }
    }

    /// Float -> binary16 bits, round to nearest even; overflow gives infinity.
    static func halfBits(_ value: Float) -> UInt16 {
        let bits = value.bitPattern
        let sign = UInt16((bits >> 16) & 0x8000)
        let exponent = Int((bits >> 23) & 0xFF)
        var mantissa = bits & 0x7F_FFFF
        if exponent == 0xFF { return sign | 0x7C00 | (mantissa != 0 ? 0x200 : 0) }
        let halfExponent = exponent - 127 + 15
        if halfExponent >= 0x1F { return sign | 0x7C00 }
        if halfExponent <= 0 {
            if halfExponent < -10 { return sign }
            mantissa |= 0x80_0000
            let shift = UInt32(14 - halfExponent)
            var half = mantissa >> shift
            let remainder = mantissa & ((1 << shift) - 1)
            let halfway: UInt32 = 1 << (shift - 1)
            if remainder > halfway || (remainder == halfway && half & 1 == 1) { half += 1 }
            return sign | UInt16(half)
        }
        var half = UInt32(halfExponent) << 10 | (mantissa >> 13)
        let remainder = mantissa & 0x1FFF
        if remainder > 0x1000 || (remainder == 0x1000 && half & 1 == 1) { half += 1 }
        return sign | UInt16(half)
    }

    /// binary16 bits -> Float (exact).
    package static func float(fromHalfBits half: UInt16) -> Float {
        let sign: UInt32 = UInt32(half & 0x8000) << 16
        let exponent = UInt32((half >> 10) & 0x1F)
        let mantissa = UInt32(half & 0x3FF)
        if exponent == 0 {
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            return sign == 0 ? magnitude : -magnitude
        }
        if exponent == 0x1F { return Float(bitPattern: sign | 0x7F80_0000 | (mantissa << 13)) }
        return Float(bitPattern: sign | ((exponent + 112) << 23) | (mantissa << 13))
    }
}
