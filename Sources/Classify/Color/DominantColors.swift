import Foundation

/// One of an image's dominant colors: an sRGB color and the fraction of the picture it covers.
///
/// ```swift
/// for color in result.dominantColors { print(color.hex, color.weight) }
/// ```
public struct DominantColor: Sendable, Hashable, Codable {
    /// sRGB red, 0...255.
    public var red: UInt8
    /// sRGB green, 0...255.
    public var green: UInt8
    /// sRGB blue, 0...255.
    public var blue: UInt8
    /// Fraction of the image's pixels in this color's cluster, 0...1; the weights of an image sum to 1.
    public var weight: Float

    /// Creates a dominant color.
    ///
    /// ```swift
    /// let blue = DominantColor(red: 1, green: 42, blue: 207, weight: 0.6)
    /// ```
    public init(red: UInt8, green: UInt8, blue: UInt8, weight: Float) {
        self.red = red
        self.green = green
        self.blue = blue
        self.weight = weight
    }

    /// `RRGGBB` in upper-case hex.
    ///
    /// ```swift
    /// print(color.hex)   // "012ACF"
    /// ```
    public var hex: String {
        [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined()
    }
}

/// Finds the few colors that make up most of an image: k-means in CIELAB (a perceptual space,
/// where Euclidean distance approximates how different colors look) over a small sample grid.
///
/// Deterministic: the image is sampled on a fixed grid of at most 48x48 pixels (each cell's
/// center pixel), centers start by farthest-point selection from the pixel nearest the mean color, and
/// Lloyd iterations run a fixed number of times. Clusters closer than ΔE 12 are merged, so a
/// flat image reports one color, and clusters under 2% of the image join the nearest color. Costs well under a millisecond next to ~20 ms of inference.
///
/// ```swift
/// let colors = DominantColors.extract(from: image)   // heaviest first, weights sum to 1
/// ```
public enum DominantColors {
    /// Colors reported per image, at most.
    public static let maximumCount = 5
    /// Side of the sample grid, at most.
    static let gridSide = 48
    static let iterations = 8
    static let mergeDistance: Float = 12
    static let minimumShare: Float = 0.02

    /// The dominant colors of `image`, heaviest first.
    ///
    /// ```swift
    /// let colors = DominantColors.extract(from: try ImageDecoder().decode(contentsOf: url))
    /// ```
    public static func extract(from image: DecodedImage, count: Int = maximumCount) -> [DominantColor] {
        let samples = sample(image)
        guard !samples.isEmpty, count > 0 else { return [] }
        var centers = initialCenters(samples, count: count)
        var assignment = [Int](repeating: 0, count: samples.count)
        for _ in 0..<iterations {
            for (index, sample) in samples.enumerated() { assignment[index] = nearest(sample, centers) }
            var sums = [Lab](repeating: Lab(l: 0, a: 0, b: 0), count: centers.count)
            var counts = [Int](repeating: 0, count: centers.count)
            for (index, sample) in samples.enumerated() {
                sums[assignment[index]].add(sample)
                counts[assignment[index]] += 1
            }
            for center in centers.indices where counts[center] > 0 { centers[center] = sums[center].scaled(1 / Float(counts[center])) }
        }
        var clusters: [(center: Lab, count: Int)] = centers.indices.map { center in
            (centers[center], assignment.lazy.filter { $0 == center }.count)
        }.filter { $0.count > 0 }
        // Merge clusters that look alike (heaviest absorbs).
        clusters.sort { $0.count > $1.count }
        var merged: [(center: Lab, count: Int)] = []
        for cluster in clusters {
            if let target = merged.firstIndex(where: { $0.center.distance(to: cluster.center) < mergeDistance }) {
                let total = Float(merged[target].count + cluster.count)
                var sum = merged[target].center.scaled(Float(merged[target].count))
                sum.add(cluster.center.scaled(Float(cluster.count)))
                merged[target] = (sum.scaled(1 / total), merged[target].count + cluster.count)
            } else {
                merged.append(cluster)
            }
        }
        // Slivers (edges, anti-aliasing) under `minimumShare` join the nearest kept color.
        let minimum = Int((minimumShare * Float(samples.count)).rounded(.up))
        var kept = merged.filter { $0.count >= minimum }
        if kept.isEmpty { kept = [merged[0]] }
        for sliver in merged where sliver.count < minimum && !kept.contains(where: { $0.center == sliver.center }) {
            let target = nearest(sliver.center, kept.map(\.center))
            kept[target].count += sliver.count
        }
        return kept.sorted { $0.count > $1.count }.map { cluster in
            let (red, green, blue) = cluster.center.srgb()
            return DominantColor(red: red, green: green, blue: blue, weight: Float(cluster.count) / Float(samples.count))
        }
    }

    /// The center pixels of a grid of at most `gridSide` x `gridSide` cells, in Lab.
    static func sample(_ image: DecodedImage) -> [Lab] {
        let columns = min(gridSide, image.width), rows = min(gridSide, image.height)
        var samples: [Lab] = []
        samples.reserveCapacity(columns * rows)
        image.pixels.withUnsafeBufferPointer { pixels in
            for row in 0..<rows {
                let y0 = row * image.height / rows, y1 = max(y0 + 1, (row + 1) * image.height / rows)
                for column in 0..<columns {
                    let x0 = column * image.width / columns, x1 = max(x0 + 1, (column + 1) * image.width / columns)
                    // The cell's center pixel: averaging would invent blends of neighbouring colors.
                    let offset = (((y0 + y1) / 2) * image.width + (x0 + x1) / 2) * 3
                    let r = Lab.linear[Int(pixels[offset])], g = Lab.linear[Int(pixels[offset + 1])]
                    let b = Lab.linear[Int(pixels[offset + 2])]
                    samples.append(Lab(linearRed: r, green: g, blue: b))
                }
            }
        }
        return samples
    }

    /// Farthest-point initialization from the sample nearest the mean color.
    static func initialCenters(_ samples: [Lab], count: Int) -> [Lab] {
        var mean = Lab(l: 0, a: 0, b: 0)
        for sample in samples { mean.add(sample) }
        mean = mean.scaled(1 / Float(samples.count))
        var centers = [samples[nearest(mean, samples)]]
        var distances = samples.map { $0.squaredDistance(to: centers[0]) }
        while centers.count < count {
            guard let farthest = distances.indices.max(by: { distances[$0] < distances[$1] }), distances[farthest] > 0 else { break }
            centers.append(samples[farthest])
            for index in samples.indices { distances[index] = min(distances[index], samples[index].squaredDistance(to: samples[farthest])) }
        }
        return centers
    }

    static func nearest(_ point: Lab, _ centers: [Lab]) -> Int {
        var best = 0, bestDistance = Float.infinity
        for (index, center) in centers.enumerated() {
            let distance = point.squaredDistance(to: center)
            if distance < bestDistance { best = index; bestDistance = distance }
        }
        return best
    }
}

/// A CIELAB color (D65 white), converted from and to sRGB.
struct Lab: Sendable, Hashable {
    var l: Float
    var a: Float
    var b: Float

    init(l: Float, a: Float, b: Float) {
        self.l = l
        self.a = a
        self.b = b
    }

    /// sRGB byte -> linear light.
    static let linear: [Float] = (0..<256).map { value in
        let c = Float(value) / 255
        return c <= 0.04045 ? c / 12.92 : Float(pow(Double((c + 0.055) / 1.055), 2.4))
    }

    init(linearRed r: Float, green g: Float, blue b: Float) {
        let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
        let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
        let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
        func f(_ t: Float) -> Float { t > 0.008856 ? Float(cbrt(Double(t))) : 7.787 * t + 16 / 116 }
        let fx = f(x), fy = f(y), fz = f(z)
        self.init(l: 116 * fy - 16, a: 500 * (fx - fy), b: 200 * (fy - fz))
    }

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.init(linearRed: Self.linear[Int(red)], green: Self.linear[Int(green)], blue: Self.linear[Int(blue)])
    }

    func srgb() -> (UInt8, UInt8, UInt8) {
        let fy = (l + 16) / 116, fx = fy + a / 500, fz = fy - b / 200
        func inverse(_ t: Float) -> Float { t > 0.206893 ? t * t * t : (t - 16 / 116) / 7.787 }
        let x = inverse(fx) * 0.95047, y = inverse(fy), z = inverse(fz) * 1.08883
        let r = 3.2406 * x - 1.5372 * y - 0.4986 * z
        let g = -0.9689 * x + 1.8758 * y + 0.0415 * z
        let bl = 0.0557 * x - 0.2040 * y + 1.0570 * z
        func encode(_ c: Float) -> UInt8 {
            let clamped = min(1, max(0, c))
            let v = clamped <= 0.0031308 ? 12.92 * clamped : 1.055 * Float(pow(Double(clamped), 1 / 2.4)) - 0.055
            return UInt8((v * 255).rounded())
        }
        return (encode(r), encode(g), encode(bl))
    }

    mutating func add(_ other: Lab) { l += other.l; a += other.a; b += other.b }
    func scaled(_ factor: Float) -> Lab { Lab(l: l * factor, a: a * factor, b: b * factor) }
    func squaredDistance(to other: Lab) -> Float {
        let dl = l - other.l, da = a - other.a, db = b - other.b
        return dl * dl + da * da + db * db
    }
    func distance(to other: Lab) -> Float { squaredDistance(to: other).squareRoot() }
}
