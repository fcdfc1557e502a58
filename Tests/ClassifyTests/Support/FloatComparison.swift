/// The largest absolute difference between two equally long arrays (kernel vs reference checks).
func maximumAbsoluteDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count, "lengths differ: \(a.count) vs \(b.count)")
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
