import Foundation

/// A dominant color of an indexed image (sRGB) and the fraction of the image it covers.
///
/// Stored in `images.dominant_colors` as 4 bytes per color, heaviest first: red, green, blue,
/// and the weight quantized to 0...255 (1/255 steps); at most ``maximumCount`` colors (20 bytes).
///
/// ```swift
/// let blue = IndexedColor(red: 1, green: 42, blue: 207, weight: 0.7)
/// let query = IndexedColor(hex: "012ACF")
/// ```
public struct IndexedColor: Sendable, Hashable {
    /// Colors stored per image, at most.
    public static let maximumCount = 8
    /// sRGB red.
    public var red: UInt8
    /// sRGB green.
    public var green: UInt8
    /// sRGB blue.
    public var blue: UInt8
    /// Fraction of the image, 0...1.
    public var weight: Double

    /// Creates a color with its weight.
    ///
    /// ```swift
    /// IndexedColor(red: 255, green: 0, blue: 0, weight: 0.5)
    /// ```
    public init(red: UInt8, green: UInt8, blue: UInt8, weight: Double = 1) {
        self.red = red
        self.green = green
        self.blue = blue
        self.weight = weight
    }

    /// Parses `RRGGBB` or `#RRGGBB` (hex, either case); nil when malformed.
    ///
    /// ```swift
    /// let color = IndexedColor(hex: "#012acf")
    /// ```
    public init?(hex: String) {
        let digits = hex.hasPrefix("#") ? String(hex.dropFirst()) : hex
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16) else { return nil }
        self.init(red: UInt8(value >> 16), green: UInt8((value >> 8) & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// `RRGGBB` (uppercase hex), the form ``init(hex:)`` reads.
    ///
    /// ```swift
    /// IndexedColor(red: 1, green: 42, blue: 207).hex   // "012ACF"
    /// ```
    public var hex: String {
        [red, green, blue].map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
    }

    /// The stored form of a list of colors (heaviest ``maximumCount`` kept).
    package static func encode(_ colors: [IndexedColor]) -> Data? {
        guard !colors.isEmpty else { return nil }
        var bytes: [UInt8] = []
        for color in colors.sorted(by: { $0.weight > $1.weight }).prefix(maximumCount) {
            bytes += [color.red, color.green, color.blue, UInt8((min(1, max(0, color.weight)) * 255).rounded())]
        }
        return Data(bytes)
    }

    /// Reads colors back from their stored form.
    package static func decode(_ bytes: UnsafeRawBufferPointer) -> [IndexedColor] {
        stride(from: 0, to: bytes.count - bytes.count % 4, by: 4).map { offset in
            IndexedColor(red: bytes[offset], green: bytes[offset + 1], blue: bytes[offset + 2], weight: Double(bytes[offset + 3]) / 255)
        }
    }
}

/// CIELAB (D65) for scoring colors: CIE76 distance approximates how different two colors look.
package struct LabColor {
    var l: Float, a: Float, b: Float

    /// sRGB byte -> linear light.
    static let linear: [Float] = (0..<256).map { value in
        let c = Float(value) / 255
        return c <= 0.04045 ? c / 12.92 : Float(pow(Double((c + 0.055) / 1.055), 2.4))
    }

    package init(red: UInt8, green: UInt8, blue: UInt8) {
        let r = Self.linear[Int(red)], g = Self.linear[Int(green)], bl = Self.linear[Int(blue)]
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * bl) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * bl
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * bl) / 1.08883
        func f(_ t: Float) -> Float { t > 0.008856 ? Float(cbrt(Double(t))) : 7.787 * t + 16 / 116 }
        let fx = f(x), fy = f(y), fz = f(z)
        l = 116 * fy - 16
        a = 500 * (fx - fy)
        b = 200 * (fy - fz)
    }

    func distance(to other: LabColor) -> Float {
        let dl = l - other.l, da = a - other.a, db = b - other.b
        return (dl * dl + da * da + db * db).squareRoot()
    }
}
