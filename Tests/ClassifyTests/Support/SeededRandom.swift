/// SplitMix64: a tiny deterministic generator so every test input is reproducible from its seed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func floats(_ count: Int, in range: ClosedRange<Float> = -1...1) -> [Float] {
        (0..<count).map { _ in Float.random(in: range, using: &self) }
    }
}

func maximumAbsoluteDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count, "lengths differ: \(a.count) vs \(b.count)")
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
