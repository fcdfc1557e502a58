import Foundation
import Hummingbird
import TagIndex

/// `/stats` and `GET /api/stats`: what `classify-tool stats` prints.
struct StatsController: Sendable {
    let services: GalleryServices

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/stats") { _, _ in services.pages.response("stats", StatsView(try await statistics())) }
        router.get("/api/stats") { _, _ in try await statistics() }
    }

    func statistics() async throws -> StatsOutput {
        // A path, or the PostgreSQL URL without its password.
        let location = services.index.location.description
        return try await services.read { index in try await StatsOutput(index: index, location: location) }
    }
}

/// What the statistics page shows.
struct StatsView: PageView {
    struct Row: Sendable {
        var name: String
        var value: String
        var url: String?
    }

    let title = "Statistics"
    let section = "stats"
    var rows: [Row]

    init(_ stats: StatsOutput) {
        rows = [
            Row(name: "Index", value: "\(stats.database) (\(LabelText.bytes(stats.databaseBytes)))"),
            Row(name: "Photos", value: "\(LabelText.count(stats.images)) classified", url: "/"),
            Row(name: "Failed", value: "\(LabelText.count(stats.failed)) could not be classified", url: stats.failed > 0 ? "/?q=failed&sort=path" : nil),
            Row(name: "Labels", value: "\(LabelText.count(stats.labels)) in the taxonomy, \(LabelText.count(stats.labelsInUse)) seen in photos", url: "/labels"),
            Row(name: "Observations", value: LabelText.count(stats.observations)),
        ] + stats.models.map { Row(name: "Model", value: "\($0.model) (\(LabelText.count($0.images)) files)") }
    }
}
