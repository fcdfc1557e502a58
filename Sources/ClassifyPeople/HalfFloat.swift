/// binary16 conversions for descriptors kept as fp16 (half the memory, and the F16C dot kernel).
/// `Float16` is not available on every platform the package builds on, so this is done on bits.
enum HalfFloat {
    /// The largest float that rounds to a finite half.
    static let largestFinite: Float = 65504

    /// Float -> half bits, round to nearest even, for finite values within ±65504.
    static func bits(_ value: Float) -> UInt16 {
        let sign = UInt16(truncatingIfNeeded: (value.bitPattern >> 16) & 0x8000)
        let magnitude = value.bitPattern & 0x7FFF_FFFF
        if magnitude < 0x3880_0000 {
            // Below 2^-14 the half is subnormal: adding 0.5 lines its bits up with the float's
            // mantissa and the FPU rounds to nearest even for us.
            let shifted = Float(bitPattern: magnitude) + 0.5
            return sign | UInt16(truncatingIfNeeded: shifted.bitPattern - Float(0.5).bitPattern)
        }
        // Normal: re-bias the exponent (127 - 15) and round the 13 dropped mantissa bits to even.
        let rounded = magnitude &+ 0x0FFF &+ ((magnitude >> 13) & 1)
        return sign | UInt16(truncatingIfNeeded: (rounded &- 0x3800_0000) >> 13)
    }

    /// Half bits -> float, exact (the same arithmetic as the C kernel's).
    static func float(_ half: UInt16) -> Float {
        let magnitude = Float(bitPattern: UInt32(half & 0x7FFF) << 13) * 0x1p112
        return Float(bitPattern: magnitude.bitPattern | UInt32(half & 0x8000) << 16)
    }
}
