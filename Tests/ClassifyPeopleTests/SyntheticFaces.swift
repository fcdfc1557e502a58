import ClassifyTestSupport
import Foundation

/// Synthetic face descriptors with a known truth: each person is a center, each face the center
/// plus Gaussian noise. In 128 dimensions a center of length `radius` puts two people about
/// `radius * sqrt(2)` apart, and noise of `spread` per value puts two faces of one person about
/// `spread * sqrt(2 * dimension)` apart (dlib's network: about 0.3 to 0.5 within a person, 0.8 and
/// more between people).
///
/// ```swift
/// var random = SeededRandom(seed: 1)
/// let alice = SyntheticFaces.center(using: &random)
/// let faces = (0..<10).map { _ in SyntheticFaces.face(near: alice, using: &random) }
/// ```
enum SyntheticFaces {
    /// A person: a random direction scaled to `radius`.
    static func center(dimension: Int = 128, radius: Float = 0.75, using random: inout SeededRandom) -> [Float] {
        let direction = (0..<dimension).map { _ in gaussian(using: &random) }
        let length = direction.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return direction.map { $0 / length * radius }
    }

    /// A face of the person at `center`: Gaussian noise of standard deviation `spread` per value.
    static func face(near center: [Float], spread: Float = 0.025, using random: inout SeededRandom) -> [Float] {
        center.map { $0 + spread * gaussian(using: &random) }
    }

    /// A standard normal number (Box-Muller).
    static func gaussian(using random: inout SeededRandom) -> Float {
        let u1 = Double.random(in: Double.ulpOfOne..<1, using: &random)
        let u2 = Double.random(in: 0..<1, using: &random)
        return Float((-2 * Foundation.log(u1)).squareRoot() * cos(2 * Double.pi * u2))
    }

    /// The Euclidean distance of two descriptors.
    static func distance(_ a: [Float], _ b: [Float]) -> Float {
        zip(a, b).reduce(0) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
    }
}
