import Hummingbird
import TagIndex

/// The stylesheet, script and icons, compiled into the binary from `Resources/static`: nothing
/// is fetched from another host. Each is linked as `/static/NAME?v=HASH`, so browsers may keep it
/// for a year and a new build's files are fetched under a new URL.
///
/// ```swift
/// let href = StaticAssets.link("gallery.css")   // /static/gallery.css?v=1f2e...
/// ```
enum StaticAssets {
    struct Asset: Sendable {
        let bytes: [UInt8]
        let contentType: String
        let version: String
    }

    static let assets: [String: Asset] = {
        let files: [(String, [UInt8], String)] = [
            ("gallery.css", PackageResources.gallery_css, "text/css; charset=utf-8"),
            ("gallery.js", PackageResources.gallery_js, "text/javascript; charset=utf-8"),
            ("favicon.svg", PackageResources.favicon_svg, "image/svg+xml"),
            ("unavailable.svg", PackageResources.unavailable_svg, "image/svg+xml"),
        ]
        var assets: [String: Asset] = [:]
        for (name, bytes, type) in files {
            assets[name] = Asset(bytes: bytes, contentType: type, version: ContentHash.hex(of: bytes))
        }
        return assets
    }()

    /// The versioned URL of asset `name`.
    static func link(_ name: String) -> String {
        "/static/\(name)?v=\(assets[name]?.version ?? "0")"
    }
}
