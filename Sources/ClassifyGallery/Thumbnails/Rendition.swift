/// The two sizes of an indexed photo the gallery serves, always as upright (EXIF orientation
/// applied), re-encoded JPEG: never the original file.
///
/// ```swift
/// let size = Rendition.thumbnail.longSide   // 320
/// ```
enum Rendition: String, Sendable, CaseIterable {
    /// The grid's tiles: 320 px on the long side fills a 160 px tile on a 2x screen.
    case thumbnail
    /// The detail page's picture: 1600 px on the long side, a laptop screen's height and more.
    case preview

    /// Longest side in pixels.
    var longSide: Int {
        switch self {
        case .thumbnail: 320
        case .preview: 1600
        }
    }

    /// JPEG quality: small tiles tolerate more compression than the large picture.
    var quality: Int {
        switch self {
        case .thumbnail: 78
        case .preview: 85
        }
    }

    /// The size of this rendition of an image of `width` x `height` (upright): scaled down to the
    /// long side, never up; a square of the long side when the size is unknown.
    func size(width: Int?, height: Int?) -> (width: Int, height: Int) {
        guard let width, let height, width > 0, height > 0 else { return (longSide, longSide) }
        let scale = min(1, Double(longSide) / Double(max(width, height)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The part of cache file names and ETags that names this size and encoding; change it when
    /// either changes, so stale files and browser caches are not reused.
    var variant: String { "\(rawValue.prefix(1))\(longSide)q\(quality)" }
}

/// A rendition's JPEG bytes and how they may be cached.
struct RenditionBytes: Sendable {
    var bytes: [UInt8]
    /// Whether the bytes match the content hash in the index (and so the ETag): false when the
    /// file changed since it was indexed, when they must not be cached.
    var matchesIndex: Bool
}
