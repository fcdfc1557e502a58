import Hummingbird
import Mustache
import TagIndex

/// Renders the gallery's pages from the Mustache templates in `Resources/templates` (compiled
/// into the binary). Every page extends `layout`, which links the stylesheet and script by their
/// content-versioned URLs. `{{value}}` escapes HTML (quotes included), so view models hold plain text.
///
/// ```swift
/// let html = try renderer.render(SearchView(...), page: "search")
/// ```
struct PageRenderer: Sendable {
    private let library: MustacheLibrary

    /// The templates, by name (the file name without `.mustache`).
    static let templates: [String: [UInt8]] = [
        "layout": PackageResources.layout_mustache,
        "search": PackageResources.search_mustache,
        "image": PackageResources.image_mustache,
        "duplicates": PackageResources.duplicates_mustache,
        "labels": PackageResources.labels_mustache,
        "label": PackageResources.label_mustache,
        "stats": PackageResources.stats_mustache,
        "error": PackageResources.error_mustache,
        "tiles": PackageResources.tiles_mustache,
        "people": PackageResources.people_mustache,
        "person": PackageResources.person_mustache,
    ]

    init() throws {
        var library = MustacheLibrary()
        for (name, bytes) in Self.templates {
            try library.register(String(decoding: bytes, as: UTF8.self), named: name)
        }
        self.library = library
    }

    /// The page `name` rendered as an HTML response. The template sees the layout's values
    /// (`title`, asset links, the current section) and, inside `{{#page}}`, the view's.
    func response(_ name: String, _ view: some PageView, status: HTTPResponse.Status = .ok) -> Response {
        let root: [String: Any] = [
            "title": view.title,
            "stylesheet": StaticAssets.link("gallery.css"),
            "script": StaticAssets.link("gallery.js"),
            "favicon": StaticAssets.link("favicon.svg"),
            "isSearch": view.section == "search",
            "isDuplicates": view.section == "duplicates",
            "isLabels": view.section == "labels",
            "isStats": view.section == "stats",
            "isPeople": view.section == "people",
            "page": view,
        ]
        let html = library.render(root, withTemplate: name) ?? ""
        var buffer = ByteBuffer()
        buffer.writeString(html)
        return Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: buffer))
    }
}

/// What every page's view gives the layout: its title and which navigation item is current.
/// Views are plain structs of stored properties (Mustache reads them by reflection).
protocol PageView: Sendable {
    /// The `<title>` (the site name is appended).
    var title: String { get }
    /// `search`, `people`, `duplicates`, `labels` or `stats`: the navigation item to highlight.
    var section: String { get }
}
