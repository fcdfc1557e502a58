/// The EXIF orientation tag (0x0112): how the stored pixels must be transformed to show the
/// picture upright. Raw values are the tag's values 1...8. Cameras store sensor-order pixels
/// and record the rotation here instead of rotating the pixels.
enum ImageOrientation: Int, Sendable, CaseIterable {
    /// 1: stored upright.
    case identity = 1
    /// 2: mirrored left-right.
    case flipHorizontal = 2
    /// 3: upside down.
    case rotate180 = 3
    /// 4: mirrored top-bottom.
    case flipVertical = 4
    /// 5: mirrored along the top-left/bottom-right diagonal.
    case transpose = 5
    /// 6: needs a quarter turn clockwise (the usual portrait phone photo).
    case rotate90Clockwise = 6
    /// 7: mirrored along the top-right/bottom-left diagonal.
    case transverse = 7
    /// 8: needs a quarter turn counter-clockwise.
    case rotate90CounterClockwise = 8

    /// Orientations 5...8 exchange width and height.
    var swapsDimensions: Bool { rawValue >= 5 }
}
