/// The parts of an image BlazeFace looks at. One 192 x 192 view of a whole 4:3 photo gives a
/// face of 3% of the photo's short side about 4 input pixels, below what the network finds;
/// square tiles of a fraction of the short side, each letterboxed into its own 192 x 192 input,
/// give it `192 * 0.03 / tileSide` pixels instead (0.6: about 10). The whole view still finds
/// the faces too large for a tile.
///
/// Usage: `let views = BlazeFaceViews.tiled(side: 0.6).rectangles(width: 4000, height: 3000)  // whole + 3 x 2 tiles`
public struct BlazeFaceViews: Sendable, Hashable, Codable {
    /// Side of the square tiles as a fraction of the image's short side; nil: the whole image only.
    /// Usage: `views.tileSide  // 0.6`
    public var tileSide: Double?
    /// Least overlap of neighbouring tiles as a fraction of the short side, so that a face of up
    /// to this size lies wholly inside some tile. Usage: `views.minimumOverlap  // 0.15`
    public var minimumOverlap: Double

    /// One view of the whole image. Usage: `BlazeFaceViews.whole`
    public static let whole = BlazeFaceViews(tileSide: nil, minimumOverlap: 0)

    /// The whole image and a grid of square tiles of `side` times the short side.
    /// Usage: `BlazeFaceViews.tiled(side: 0.6)`
    public static func tiled(side: Double, minimumOverlap: Double = 0.15) -> BlazeFaceViews {
        BlazeFaceViews(tileSide: side, minimumOverlap: minimumOverlap)
    }

    /// A view: a rectangle of the image, in pixels, and whether it is a tile (whose faces cut by
    /// an inner edge are dropped: the neighbouring tile or the whole view sees them whole).
    struct Rectangle: Sendable, Equatable {
        var x: Int, y: Int, width: Int, height: Int
        var isTile: Bool
    }

    /// The whole image first, then the tiles row by row (none when a tile would not be smaller
    /// than the image, or the image is too small to tile).
    func rectangles(width: Int, height: Int) -> [Rectangle] {
        var views = [Rectangle(x: 0, y: 0, width: width, height: height, isTile: false)]
        guard let tileSide, tileSide > 0, tileSide < 1, width > 0, height > 0 else { return views }
        let short = min(width, height)
        let side = max(1, Int((Double(short) * tileSide).rounded()))
        let overlap = min(Double(side) / 2, Double(short) * minimumOverlap)
        guard side >= 16 else { return views }
        func origins(_ length: Int) -> [Int] {
            guard length > side else { return [0] }
            let count = Int((Double(length - side) / (Double(side) - overlap)).rounded(.up)) + 1
            return (0..<count).map { Int((Double($0) * Double(length - side) / Double(count - 1)).rounded()) }
        }
        for y in origins(height) {
            for x in origins(width) {
                views.append(Rectangle(x: x, y: y, width: min(side, width - x), height: min(side, height - y), isTile: true))
            }
        }
        return views
    }
}
