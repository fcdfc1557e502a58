import Foundation
import Hummingbird
import TagIndex

/// `/labels` (the taxonomy, browsable, with image counts), `/labels?label=ID` (one label: its
/// parents, children and synonyms) and `GET /api/labels`.
struct LabelsController: Sendable {
    let services: GalleryServices

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/labels", use: page)
        router.get("/api/labels", use: api)
    }

    /// Labels whose identifier, display name or synonym contains `text` (case-insensitive, `_` =
    /// space): names equal to it first, then most images.
    static func matching(_ text: String, in catalog: [CatalogLabel]) -> [CatalogLabel] {
        let needle = LabelText.name(text.lowercased()).trimmingCharacters(in: .whitespaces)
        guard !needle.isEmpty else { return catalog }
        func names(_ label: CatalogLabel) -> [String] {
            ([label.identifier, label.displayName] + label.synonyms).map { LabelText.name($0.lowercased()) }
        }
        return catalog
            .filter { names($0).contains { $0.contains(needle) } }
            .sorted { a, b in
                let exactA = names(a).contains(needle), exactB = names(b).contains(needle)
                if exactA != exactB { return exactA }
                return (a.imageCount, b.identifier) > (b.imageCount, a.identifier)
            }
    }

    @Sendable func api(_ request: Request, context: GalleryRequestContext) async throws -> [LabelOutput] {
        let parameters = try QueryParameters(request.uri.query)
        let used = ["1", "true", "yes"].contains(parameters["used"] ?? "")
        let catalog = try await services.read { try await $0.labelCatalog() }
        var labels = Self.matching(parameters["q"] ?? "", in: catalog)
        if used { labels = labels.filter { $0.imageCount > 0 }.sorted { ($0.imageCount, $1.identifier) > ($1.imageCount, $0.identifier) } }
        return labels.map(LabelOutput.init)
    }

    @Sendable func page(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let parameters = try QueryParameters(request.uri.query)
        let catalog = try await services.read { try await $0.labelCatalog() }
        if let identifier = parameters["label"], !identifier.isEmpty {
            guard let label = catalog.first(where: { $0.identifier == identifier }) else {
                throw GalleryError(.notFound, "No label is called '\(identifier)'.")
            }
            return services.pages.response("label", LabelView(label, catalog: catalog))
        }
        return services.pages.response("labels", LabelsView(filter: parameters["q"] ?? "", catalog: catalog))
    }
}

/// A label as a link with its image count.
struct LabelLink: Sendable {
    var name: String
    var url: String
    var count: String
    var isLeaf: Bool
    var isEmpty: Bool

    init(_ label: CatalogLabel) {
        name = LabelText.name(label.identifier)
        url = URLQuery.link("/labels", ["label": label.identifier])
        count = LabelText.count(label.imageCount)
        isLeaf = label.isLeaf
        isEmpty = label.imageCount == 0
    }
}

/// What the labels page shows: the most frequent labels, the top of the taxonomy, or the labels
/// matching a filter.
struct LabelsView: PageView {
    let title = "Labels"
    let section = "labels"
    var filter: String
    var frequent: [LabelLink]
    var roots: [LabelLink]
    var matches: [LabelLink]
    var isFiltering: Bool
    var summary: String

    init(filter: String, catalog: [CatalogLabel]) {
        self.filter = filter
        isFiltering = !filter.trimmingCharacters(in: .whitespaces).isEmpty
        let used = catalog.filter { $0.imageCount > 0 }
        frequent = used.filter(\.isLeaf).sorted { ($0.imageCount, $1.identifier) > ($1.imageCount, $0.identifier) }.prefix(40).map(LabelLink.init)
        roots = catalog.filter { $0.parents.isEmpty }.sorted { ($0.imageCount, $1.identifier) > ($1.imageCount, $0.identifier) }.map(LabelLink.init)
        matches = isFiltering ? LabelsController.matching(filter, in: catalog).prefix(200).map(LabelLink.init) : []
        summary = isFiltering
            ? "\(LabelText.count(matches.count)) label\(matches.count == 1 ? "" : "s") match “\(filter)”"
            : "\(LabelText.count(catalog.count)) labels, \(LabelText.count(used.count)) of them in your photos"
    }
}

/// What one label's page shows.
struct LabelView: PageView {
    var title: String
    let section = "labels"
    var name: String
    var displayName: String
    var kind: String
    var synonyms: String
    var parents: [LabelLink]
    var children: [LabelLink]
    var searchURL: String
    var imageCount: String
    var hasImages: Bool

    init(_ label: CatalogLabel, catalog: [CatalogLabel]) {
        let byIdentifier = Dictionary(catalog.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        name = LabelText.name(label.identifier)
        title = name
        displayName = label.displayName
        kind = label.isLeaf ? "one of the classifier's classes" : "a group of \(LabelText.count(label.classCount)) classes"
        synonyms = label.synonyms.joined(separator: ", ")
        parents = label.parents.compactMap { byIdentifier[$0] }.map(LabelLink.init)
        children = label.children.compactMap { byIdentifier[$0] }
            .sorted { ($0.imageCount, $1.identifier) > ($1.imageCount, $0.identifier) }.map(LabelLink.init)
        searchURL = URLQuery.link("/", ["q": label.identifier])
        imageCount = LabelText.count(label.imageCount)
        hasImages = label.imageCount > 0
    }
}
