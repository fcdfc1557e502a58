import Foundation
import Hummingbird
import TagIndex

/// `/duplicates` and `GET /api/duplicates`: groups of near-duplicate photos, largest first, the
/// keeper (largest resolution) marked; `threshold` (0.5...1) moves the line.
struct DuplicatesController: Sendable {
    let services: GalleryServices
    /// Groups shown on the page at most.
    static let shownGroups = 100

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/duplicates", use: page)
        router.get("/api/duplicates", use: api)
    }

    func groups(threshold: Double) async throws -> (groups: [DuplicateGroup], milliseconds: Double) {
        let started = ContinuousClock.now
        let version = try await services.read { try await $0.contentVersion() }
        let groups = try await services.duplicates.groups(threshold: threshold, version: version) { [services] in
            try await services.read { try await $0.duplicateGroups(threshold: threshold, query: Query()) }
        }
        return (groups, (ContinuousClock.now - started).milliseconds)
    }

    static func threshold(_ request: Request) throws -> Double {
        let value = try QueryParameters(request.uri.query).number("threshold", in: 0.5...1) ?? SQLiteIndex.defaultDuplicateThreshold
        return (value * 100).rounded() / 100
    }

    @Sendable func page(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let threshold = try Self.threshold(request)
        let found = try await groups(threshold: threshold)
        let shown = Array(found.groups.prefix(Self.shownGroups))
        let labels = try await services.read { try await $0.labels(forImageIDs: shown.flatMap { $0.members.map(\.imageID) }) }
        return services.pages.response("duplicates", DuplicatesView(threshold: threshold, groups: found.groups, labels: labels, milliseconds: found.milliseconds))
    }

    @Sendable func api(_ request: Request, context: GalleryRequestContext) async throws -> DuplicatesResponse {
        let threshold = try Self.threshold(request)
        let found = try await groups(threshold: threshold)
        return DuplicatesResponse(
            threshold: threshold,
            groups: found.groups.map { group in
                DuplicateGroupOutput(group) { member in ImageLinks(id: member.imageID, thumbnail: "/images/\(member.imageID)/thumbnail") }
            },
            milliseconds: (found.milliseconds * 100).rounded() / 100)
    }
}

/// What the duplicates page shows.
struct DuplicatesView: PageView {
    struct Group: Sendable {
        var heading: String
        var tiles: [Tile]
    }

    let title = "Near-duplicates"
    let section = "duplicates"
    var threshold: String
    var summary: String
    var groups: [Group]
    var more: String
    var isEmpty: Bool

    init(threshold: Double, groups: [DuplicateGroup], labels: [Int64: [ImageLabel]], milliseconds: Double) {
        self.threshold = String(format: "%.2f", threshold)
        let images = groups.reduce(0) { $0 + $1.members.count }
        summary = groups.isEmpty
            ? "No two photos score \(self.threshold) or more."
            : "\(LabelText.count(groups.count)) group\(groups.count == 1 ? "" : "s"), \(LabelText.count(images)) photos, \(LabelText.count(images - groups.count)) could go · \(String(format: "%.0f", milliseconds)) ms"
        self.groups = groups.prefix(DuplicatesController.shownGroups).map { group in
            Group(
                heading: "\(group.members.count) photos",
                tiles: group.members.enumerated().map { position, member in
                    let size = member.width.flatMap { width in member.height.map { "\(width) × \($0)" } } ?? ""
                    // Groups carry no modification time, so these links have no version: browsers
                    // revalidate them (a 304 when unchanged).
                    return Tile(
                        id: member.imageID, path: member.path, size: member.size, modified: nil,
                        width: member.width, height: member.height, labels: labels[member.imageID] ?? [],
                        caption: "\(size) · \(LabelText.bytes(member.size))",
                        badge: position == 0 ? "keep" : LabelText.confidence(member.score), isKeeper: position == 0)
                })
        }
        more = groups.count > DuplicatesController.shownGroups
            ? "and \(LabelText.count(groups.count - DuplicatesController.shownGroups)) smaller groups (all of them: /api/duplicates)" : ""
        isEmpty = groups.isEmpty
    }
}
