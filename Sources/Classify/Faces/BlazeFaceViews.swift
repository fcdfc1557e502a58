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
    /// A second look at the whole image, through an input shaped like it with this short side in
    /// pixels (rounded up to a multiple of 32, at least 224; the long side follows the image's aspect ratio, rounded
    /// up to a multiple of 32): the network is fully convolutional, so a larger input sees small
    /// faces larger, at the cost of its area. The 192 x 192 view still runs: it finds the large
    /// faces the larger input misses. nil: no second look.
    /// Usage: `views.shortSide  // 320`
    public var shortSide: Int?

    /// One view of the whole image. Usage: `BlazeFaceViews.whole`
    public static let whole = BlazeFaceViews(tileSide: nil, minimumOverlap: 0)

    /// The whole image at 192 x 192 and again at an input of `shortSide` (rounded up to a
    /// multiple of 32, at least 224). Usage: `BlazeFaceViews.enlarged(shortSide: 320)`
    public static func enlarged(shortSide: Int) -> BlazeFaceViews {
        BlazeFaceViews(tileSide: nil, minimumOverlap: 0, shortSide: Self.inputShortSide(shortSide))
    }

    /// The enlarged look's short side for an asked one: rounded up to a multiple of 32, at least 224.
    private static func inputShortSide(_ asked: Int) -> Int { multiple(of: 32, atLeast: max(asked, 224)) }

    /// The smallest multiple of `step` at or above `value`.
    private static func multiple(of step: Int, atLeast value: Int) -> Int { (value + step - 1) / step * step }

    /// The network input of `view`: `side x side` (the network's own), unless the view is the
    /// enlarged look, then shaped like the view (`shortSide` set to any value is rounded up to a
    /// multiple of 32 and at least 224 here, so the graph always compiles).
    func input(of view: Rectangle, side: Int) -> (width: Int, height: Int) {
        guard view.isEnlarged, let shortSide, view.width > 0, view.height > 0 else { return (side, side) }
        let short = Self.inputShortSide(shortSide)
        guard short > side else { return (side, side) }
        let width = view.width, height = view.height
        let long = Self.multiple(of: 32, atLeast: (short * max(width, height) + min(width, height) - 1) / min(width, height))
        let capped = min(long, 4 * short)  // a panorama keeps its short side; the long side is letterboxed
        return width >= height ? (capped, short) : (short, capped)
    }

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
        /// The whole image's second look, at `shortSide`.
        var isEnlarged = false
    }

    /// The whole image first, then its enlarged look (with `shortSide`), then the tiles row by row
    /// (none when a tile would not be smaller than the image, or the image is too small to tile).
    func rectangles(width: Int, height: Int) -> [Rectangle] {
        var views = [Rectangle(x: 0, y: 0, width: width, height: height, isTile: false)]
        if shortSide != nil, width > 0, height > 0 {
            views.append(Rectangle(x: 0, y: 0, width: width, height: height, isTile: false, isEnlarged: true))
        }
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
