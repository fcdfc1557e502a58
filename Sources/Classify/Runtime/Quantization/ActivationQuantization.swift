import CClassifyKernels

/// How one activation tensor is stored in 8 bits: `q = clamp(round(x / scale) + zeroPoint, 0, 255)`,
/// one scale and zero point for the whole tensor (asymmetric uint8).
///
/// Per-tensor rather than per-channel: the int8 kernels sum products over the input channels in
/// one integer accumulator, so a scale that varied along those channels could not be taken out of
/// the sum.
///
/// Usage: `let quantization = ActivationQuantization(range: -2.5...6)`
struct ActivationQuantization: Sendable, Equatable {
    let scale: Float
    let zeroPoint: Int

    /// Covers `range` widened to include zero (so zero, the padding and the ReLU floor, is exact),
    /// in 255 steps.
    init(range: ClosedRange<Float>) {
        let low = min(range.lowerBound, 0), high = max(range.upperBound, 0)
        guard high > low, (high - low).isFinite else {
            self.init(scale: 1, zeroPoint: 0)
            return
        }
        let scale = (high - low) / 255
        self.init(scale: scale, zeroPoint: Int((-low / scale).rounded()).clamped(to: 0...255))
    }

    init(scale: Float, zeroPoint: Int) {
        precondition(scale > 0 && (0...255).contains(zeroPoint))
        self.scale = scale
        self.zeroPoint = zeroPoint
    }

    /// What the kernels multiply by (`cls_quantize_u8` takes the inverse).
    var inverseScale: Float { 1 / scale }
}

extension Comparable {
    func clamped(to range: ClosedRange<Self>) -> Self { min(max(self, range.lowerBound), range.upperBound) }
}
