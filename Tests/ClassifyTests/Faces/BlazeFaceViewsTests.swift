import Foundation
import Testing
@testable import Classify

/// BlazeFace's views: the whole image first, then square tiles that cover it with the overlap
/// asked for; and the tiled pipeline on a photo whose faces are small.
struct BlazeFaceViewsTests {
    @Test(arguments: [(4000, 3000), (3000, 4000), (500, 375), (641, 479), (100, 3000), (256, 256), (17, 900)])
    func tilesCoverTheImageWithTheOverlapAskedFor(size: (width: Int, height: Int)) {
        let views = BlazeFaceViews.tiled(side: 0.6).rectangles(width: size.width, height: size.height)
        #expect(views.first == BlazeFaceViews.Rectangle(x: 0, y: 0, width: size.width, height: size.height, isTile: false))
        let tiles = views.dropFirst()
        let short = min(size.width, size.height)
        let side = Int((Double(short) * 0.6).rounded())
        guard side >= 16 else {
            #expect(tiles.isEmpty, "too small to tile")
            return
        }
        #expect(!tiles.isEmpty)
        for tile in tiles {
            #expect(tile.isTile && tile.x >= 0 && tile.y >= 0 && tile.x + tile.width <= size.width && tile.y + tile.height <= size.height)
            #expect(tile.width == min(side, size.width) && tile.height == min(side, size.height))
        }
        // Every point lies in a tile with a margin of the least overlap's half on each inner side,
        // so a face up to the overlap's size is whole in some tile.
        let overlap = min(Double(side) / 2, Double(short) * 0.15)
        let step = max(1, short / 37)
        for y in stride(from: 0, to: size.height, by: step) {
            for x in stride(from: 0, to: size.width, by: step) {
                let covered = tiles.contains { tile in
                    func inside(_ p: Int, _ origin: Int, _ length: Int, _ total: Int) -> Bool {
                        let low = origin == 0 ? 0 : Double(origin) + overlap / 2 - 1
                        let high = origin + length == total ? Double(total) : Double(origin + length) - overlap / 2 + 1
                        return Double(p) >= low && Double(p) <= high
                    }
                    return inside(x, tile.x, tile.width, size.width) && inside(y, tile.y, tile.height, size.height)
                }
                #expect(covered, "(\(x), \(y)) of \(size)")
            }
        }
    }

    @Test func wholeIsOneViewAndTinyImagesAreNotTiled() {
        #expect(BlazeFaceViews.whole.rectangles(width: 4000, height: 3000).count == 1)
        #expect(BlazeFaceViews.tiled(side: 0.6).rectangles(width: 20, height: 20).count == 1)
        #expect(BlazeFaceViews.tiled(side: 1).rectangles(width: 400, height: 300).count == 1)
        // 4:3 at 0.6: two rows and three columns of 180-px tiles.
        #expect(BlazeFaceViews.tiled(side: 0.6).rectangles(width: 400, height: 300).count == 1 + 2 * 3)
    }

    /// The enlarged look: the whole view at 192 x 192, then the whole image again through an
    /// input shaped like it, its short side a multiple of 32 and its long side rounded up to one.
    @Test func enlargedLookIsShapedLikeTheImage() {
        let views = BlazeFaceViews.enlarged(shortSide: 350)
        #expect(views.shortSide == 352)
        let rectangles = views.rectangles(width: 4000, height: 3000)
        #expect(rectangles.count == 2 && !rectangles[0].isEnlarged && rectangles[1].isEnlarged && !rectangles[1].isTile)
        #expect(views.input(of: rectangles[0], side: 192) == (192, 192))
        // 352 * 4000 / 3000 = 469.3 -> 480; upright, the sides swap.
        #expect(views.input(of: rectangles[1], side: 192) == (480, 352))
        #expect(views.input(of: views.rectangles(width: 3000, height: 4000)[1], side: 192) == (352, 480))
        // A panorama's long side stops at four times the short side (the rest is letterboxed).
        #expect(views.input(of: views.rectangles(width: 20000, height: 1000)[1], side: 192) == (1408, 352))
        // Never a second look at the first one's size.
        #expect(BlazeFaceViews.enlarged(shortSide: 100).shortSide == 224)
        // Set by hand to a size the graph cannot take, it is rounded the same way.
        var byHand = BlazeFaceViews.whole
        byHand.shortSide = 300
        #expect(byHand.input(of: byHand.rectangles(width: 400, height: 300)[1], side: 192) == (448, 320))
        #expect(BlazeFaceViews.whole.rectangles(width: 400, height: 300).allSatisfy { !$0.isEnlarged })
    }
}
