import ClassifySupport
import Foundation
import TagIndex

/// One photo in a grid: a link to its page around its thumbnail, with alt text naming what the
/// classifier saw.
struct Tile: Sendable {
    var url: String
    var thumbnail: String
    var alt: String
    var caption: String
    /// The thumbnail's size (long side 320), so the grid keeps its layout while images load.
    var width: Int
    var height: Int
    /// A badge such as "keep" or a score; nil for none (Mustache shows an empty string's section).
    var badge: String?
    var isKeeper: Bool
    /// A heading the grid shows before this tile (the month a timeline's photos start).
    var heading: Heading?

    /// A heading inside a grid, with the id links jump to.
    struct Heading: Sendable {
        var id: String
        var title: String
    }

    init(id: Int64, path: String, size: Int64, modified: Date?, width: Int?, height: Int?, labels: [ImageLabel], caption: String, badge: String = "", isKeeper: Bool = false) {
        url = "/images/\(id)"
        thumbnail = modified.map { Tile.thumbnailLink(id: id, size: size, modified: $0) } ?? "/images/\(id)/thumbnail"
        alt = Tile.altText(path: path, labels: labels)
        self.caption = caption
        (self.width, self.height) = Rendition.thumbnail.size(width: width, height: height)
        self.badge = badge.isEmpty ? nil : badge
        self.isKeeper = isKeeper
    }

    /// A result's tile, captioned with its file name.
    init(_ hit: SearchHit, labels: [ImageLabel], badge: String = "", isKeeper: Bool = false) {
        self.init(
            id: hit.imageID, path: hit.path, size: hit.size, modified: hit.modificationTime, width: hit.width, height: hit.height,
            labels: labels, caption: (RawPath.displayed(hit.path) as NSString).lastPathComponent, badge: badge, isKeeper: isKeeper)
    }

    /// `/images/ID/thumbnail?v=...`: the version names the file state the page saw (size and
    /// modification time), so a changed photo gets a new URL and the old one may be cached for good.
    static func thumbnailLink(id: Int64, size: Int64, modified: Date, rendition: Rendition = .thumbnail) -> String {
        "/images/\(id)/\(rendition.rawValue)?v=\(fileVersion(size: size, modified: modified))"
    }

    static func fileVersion(size: Int64, modified: Date) -> String {
        String(Int64((modified.timeIntervalSince1970 * 1e6).rounded()), radix: 36) + "-" + String(size, radix: 36)
    }

    /// "Golden retriever, tennis ball": the classifier's own classes it is most confident of
    /// (those at 0.15 or more, at most three, at least one); the file name when it has no label.
    static func altText(path: String, labels: [ImageLabel]) -> String {
        let classes = labels.filter(\.isLeaf).sorted { ($0.confidence ?? 0) > ($1.confidence ?? 0) }
        var names = classes.prefix(3).filter { ($0.confidence ?? 0) >= 0.15 }.map { LabelText.name($0.identifier) }
        if names.isEmpty, let first = classes.first { names = [LabelText.name(first.identifier)] }
        guard !names.isEmpty else { return "Photo \((RawPath.displayed(path) as NSString).lastPathComponent), not classified" }
        let text = names.joined(separator: ", ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }
}

/// Label identifiers as people read them.
enum LabelText {
    /// `golden_retriever` -> `golden retriever`.
    static func name(_ identifier: String) -> String {
        identifier.replacingOccurrences(of: "_", with: " ")
    }

    /// A confidence with two decimals, as the detail page shows it ("0.98").
    static func confidence(_ value: Double) -> String {
        String(format: "%.2f", value)
    }

    /// "1.2 MB", "830 KB".
    static func bytes(_ count: Int64) -> String {
        ByteCountFormatter.string(fromByteCount: count, countStyle: .file)
    }

    /// "12,345".
    static func count(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }
}
