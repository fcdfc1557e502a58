import Classify
import ClassifySupport
import ClassifyIndexing
import Foundation
import Hummingbird
import TagIndex

/// One photo: the detail page (`/images/{id}`), `GET /api/images/{id}` and
/// `GET /api/images/{id}/similar`. Images are named only by their id in the index; no URL takes a path.
struct ImageController: Sendable {
    let services: GalleryServices
    /// Images in the "similar" strip.
    static let similarCount = 12
    /// Members of a near-duplicate group the page looks for at most (a burst or a time-lapse can
    /// chain thousands; the Duplicates page lists them all).
    static let duplicateCount = 60

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/images/:id", use: page)
        router.get("/api/images/:id", use: api)
        router.get("/api/images/:id/similar", use: similar)
    }

    /// The id in the path; anything but a positive integer names no image (404, not 400: the
    /// address simply leads nowhere).
    static func imageID(_ context: GalleryRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw GalleryError(.notFound, "There is no image at this address; images are named by their number in the index.")
        }
        return id
    }

    /// Everything the page and the API show about one image.
    struct Details: Sendable {
        var id: Int64
        var image: IndexedImage
        var labels: [ImageLabel]
        var colors: [IndexedColor]
        /// The faces stored for the image, highest confidence first; nil when not looked for.
        var faces: [IndexedFace]?
        /// Date taken, position, camera and place (the file time standing in for a date).
        var metadata: MetadataFields
        var similar: SearchPage?
        /// The near-duplicate group the image belongs to (at the default threshold), if any.
        var duplicates: DuplicateGroup?
        /// Labels of the similar images and of the group's members, for their alt text.
        var similarLabels: [Int64: [ImageLabel]]
        var format: String?
        var fileExists: Bool
        /// Why the file cannot be shown when it is in a library root this server was not given.
        var unknownRoot: String?
    }

    func details(id: Int64, similarCount: Int) async throws -> Details {
        let (image, id) = try await services.image(id: id)
        let local = services.localFile(image.path)
        // The file's first bytes (its format, and whether it is there) off the cooperative threads.
        let leading = try await services.fileWork.run { local.path.flatMap(Self.leadingBytes(of:)) }
        return try await services.read { index in
            let labels = try await index.labels(forPath: image.path)
            let colors = try await index.dominantColors(forPath: image.path)
            let faces = try await index.faces(forPath: image.path)
            let stored = try await index.metadata(forPath: image.path)
            let metadata = PhotoMetadataReader.output(stored, modified: image.failureStage == nil ? image.modificationTime : nil)
            var similar: SearchPage?
            var duplicates: DuplicateGroup?
            if image.hasFeaturePrint && similarCount > 0 {
                var query = Query()
                query.limit = similarCount
                let page = try await index.similar(toPath: image.path, query: query, minimumScore: 0)
                // When the strip's last photo is below the threshold, the strip holds every direct
                // neighbour and the group's search starts from them instead of scanning again.
                let threshold = SQLiteIndex.defaultDuplicateThreshold
                let close = page.hits.filter { $0.score >= threshold }
                let complete = page.hits.count < similarCount || (page.hits.last?.score ?? 0) < threshold
                if !(complete && close.isEmpty) {
                    duplicates = try await index.duplicateGroup(
                        containingPath: image.path, threshold: threshold, maximumMembers: Self.duplicateCount,
                        knownNeighbours: complete ? close.map(\.imageID) : nil)
                }
                similar = page
            }
            let shownIDs = (similar?.hits.map(\.imageID) ?? []) + (duplicates?.members.map(\.imageID) ?? [])
            let similarLabels = try await index.labels(forImageIDs: Array(Set(shownIDs)))
            return Details(
                id: id, image: image, labels: labels, colors: colors, faces: faces, metadata: metadata, similar: similar, duplicates: duplicates,
                similarLabels: similarLabels,
                format: leading.flatMap { ImageFormat(leadingBytes: $0)?.description }, fileExists: leading != nil,
                unknownRoot: local.unknownRoot)
        }
    }

    /// The first bytes of the file (enough to recognise its format), nil when it cannot be read.
    static func leadingBytes(of path: String) -> [UInt8]? {
        let descriptor = RawPath.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var leading = [UInt8](repeating: 0, count: 64)
        let count = leading.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
        return count >= 0 ? Array(leading.prefix(count)) : nil
    }

    @Sendable func page(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let details = try await details(id: Self.imageID(context), similarCount: Self.similarCount + 1)
        // The names a face can be given in one click (as suggestions; any name is accepted).
        let named = (details.faces ?? []).isEmpty ? [] : try await services.read { try await $0.people().compactMap(\.name) }
        return services.pages.response("image", ImageView(details, csrf: context.csrfToken, names: named))
    }

    @Sendable func api(_ request: Request, context: GalleryRequestContext) async throws -> ImageOutput {
        let details = try await details(id: Self.imageID(context), similarCount: 0)
        let image = details.image
        var output = ImageOutput(image: image, labels: details.labels, marksLeaves: true)
        output.id = details.id
        output.format = details.format
        output.colors = details.colors.map(ColorOutput.init)
        output.faces = details.faces?.enumerated().map { FaceOutput($1, number: $0 + 1) }
        output.setMetadata(details.metadata)
        output.thumbnail = Tile.thumbnailLink(id: details.id, size: image.size, modified: image.modificationTime)
        output.preview = Tile.thumbnailLink(id: details.id, size: image.size, modified: image.modificationTime, rendition: .preview)
        return output
    }

    @Sendable func similar(_ request: Request, context: GalleryRequestContext) async throws -> SimilarOutput {
        let id = try Self.imageID(context)
        let parameters = try QueryParameters(request.uri.query)
        let limit = try parameters.integer("limit", in: 1...200) ?? 20
        let pageNumber = try parameters.integer("page", in: 1...1_000_000) ?? 1
        let minimumScore = try parameters.number("min", in: 0...1) ?? 0
        let (image, _) = try await services.image(id: id)
        guard image.hasFeaturePrint else {
            throw GalleryError(.notFound, "\(RawPath.displayed(image.path)) has no feature print (it could not be classified), so nothing can be compared with it.")
        }
        let page = try await services.read { index in
            var query = Query()
            query.limit = limit
            query.page = pageNumber
            return try await index.similar(toPath: image.path, query: query, minimumScore: minimumScore)
        }
        return SimilarOutput(page: page) { hit in
            ImageLinks(id: hit.imageID, thumbnail: Tile.thumbnailLink(id: hit.imageID, size: hit.size, modified: hit.modificationTime))
        }
    }
}

/// What the detail page shows.
struct ImageView: PageView {
    struct Fact: Sendable {
        var name: String
        var value: String
        /// A link the value opens (outside the gallery: the page itself fetches nothing from it).
        var link: String? = nil
    }

    struct Bar: Sendable {
        var name: String
        var url: String
        var confidence: String
        /// Bar length in percent of the track.
        var percent: String
        var isLeaf: Bool
        var kind: String
    }

    struct Swatch: Sendable {
        var hex: String
        var share: String
        var url: String
    }

    /// A face's box drawn over the photo, in pixels of the upright image (the overlay's viewBox).
    struct FaceOutline: Sendable {
        var x: String
        var y: String
        var width: String
        var height: String
        var title: String
        /// The person's name (or "person 7") drawn beside the box; nil while unassigned.
        var label: String?
        /// Where the label goes: below the box, or above it when the box reaches the bottom.
        var labelY: String
        /// The label's size in the overlay's units (a fixed share of the photo's height).
        var fontSize: String
    }

    /// A face in the People part of the page: its crop, its person and the forms that correct it.
    struct FaceRow: Sendable {
        var number: Int
        var crop: String
        var person: String?
        var personURL: String?
        var personID: Int64?
        var whoAction: String
        var notAction: String
        var hideAction: String
    }

    var title: String
    let section = "search"
    var fileName: String
    var folder: String
    var preview: String
    var previewWidth: Int
    var previewHeight: Int
    var alt: String
    var facts: [Fact]
    var failure: String?
    var missing: String?
    /// The classifier's own classes, most confident first.
    var bars: [Bar]
    var moreBars: [Bar]
    /// The groups above them (dog, animal...), most confident first.
    var groupBars: [Bar]
    var moreGroupBars: [Bar]
    var swatches: [Swatch]
    /// The faces' outlines, drawn over the photo when the "faces" switch is on; empty without faces.
    var faces: [FaceOutline]
    /// The faces with their people and forms.
    var faceRows: [FaceRow]
    /// Named people, suggested in the "who is this" fields.
    var names: [String]
    /// This session's form token.
    var csrf: String
    /// "1 face", "3 faces"; nil when the image has no faces stored.
    var faceCount: String?
    /// The overlay's viewBox: the upright image's size.
    var faceViewBox: String
    var similar: [Tile]
    var duplicates: [Tile]
    var duplicateNote: String
    var apiURL: String

    /// Date taken, camera, place and position, each a fact; the position links to the spot on
    /// OpenStreetMap.
    static func takenFacts(_ metadata: MetadataFields) -> [Fact] {
        var facts: [Fact] = []
        if let taken = metadata.taken {
            facts.append(.init(name: "Taken", value: metadata.takenFrom == "file" ? "\(taken) (file time: the photo states no date)" : taken))
        }
        if let camera = metadata.camera {
            if let name = camera.displayName { facts.append(.init(name: "Camera", value: name)) }
            if let lens = camera.lens { facts.append(.init(name: "Lens", value: lens)) }
        }
        if let place = metadata.place {
            facts.append(.init(name: "Place", value: place.displayName))
        }
        if let gps = metadata.gps {
            let position = String(format: "%.5f, %.5f", gps.latitude, gps.longitude) + (gps.altitude.map { String(format: " (%.0f m)", $0) } ?? "")
            let link = String(format: "https://www.openstreetmap.org/?mlat=%.6f&mlon=%.6f#map=15/%.6f/%.6f", gps.latitude, gps.longitude, gps.latitude, gps.longitude)
            facts.append(.init(name: "Position", value: position, link: link))
        }
        return facts
    }

    init(_ details: ImageController.Details, csrf: String = "", names: [String] = []) {
        self.csrf = csrf
        self.names = names.sorted()
        let image = details.image
        // Pages show names as people read them (bytes that are not UTF-8 as U+FFFD); the API
        // keeps the exact path.
        let shownPath = RawPath.displayed(image.path)
        fileName = (shownPath as NSString).lastPathComponent
        folder = (shownPath as NSString).deletingLastPathComponent
        title = fileName
        preview = Tile.thumbnailLink(id: details.id, size: image.size, modified: image.modificationTime, rendition: .preview)
        (previewWidth, previewHeight) = Rendition.preview.size(width: image.width, height: image.height)
        alt = Tile.altText(path: image.path, labels: details.labels)
        var facts = [Fact(name: "Path", value: shownPath)]
        if let width = image.width, let height = image.height {
            let megapixels = Double(width * height) / 1e6
            facts.append(Fact(name: "Dimensions", value: "\(width) × \(height) (\(String(format: "%.1f", megapixels)) MP)"))
        }
        facts.append(Fact(name: "Size", value: LabelText.bytes(image.size)))
        if let format = details.format { facts.append(Fact(name: "Format", value: format)) }
        facts += Self.takenFacts(details.metadata)
        facts.append(Fact(name: "Modified", value: Self.date(image.modificationTime)))
        facts.append(Fact(name: "Indexed", value: Self.date(image.indexedAt)))
        if let model = image.model { facts.append(Fact(name: "Model", value: model.description)) }
        if let hash = image.contentHash { facts.append(Fact(name: "Content hash", value: hash)) }
        self.facts = facts
        if let stage = image.failureStage { failure = "Could not be classified (\(stage)): \(image.failureReason ?? "")" }
        if let root = details.unknownRoot {
            missing = LocalFile.unknownRootSentence(root)
        } else if !details.fileExists { missing = "The file cannot be read any more (moved or deleted since it was indexed); run classify-tool index on its folder to update the index." }

        let ranked = details.labels
            .map { label in (label, label.confidence ?? label.subtreeConfidence) }
            .sorted { ($0.1, $1.0.identifier) > ($1.1, $0.0.identifier) }
        let allBars = ranked.map { label, confidence in
            Bar(
                name: LabelText.name(label.identifier), url: URLQuery.link("/", ["q": label.identifier]),
                confidence: LabelText.confidence(confidence), percent: String(format: "%.1f", max(0.5, confidence * 100)),
                isLeaf: label.isLeaf, kind: label.isLeaf ? "kind-class" : "kind-group")
        }
        // Classes first: "golden retriever 0.91" says more than "animal 1.00", which every dog has.
        let classBars = allBars.filter(\.isLeaf), groups = allBars.filter { !$0.isLeaf }
        bars = Array(classBars.prefix(5))
        moreBars = Array(classBars.dropFirst(5))
        groupBars = Array(groups.prefix(6))
        moreGroupBars = Array(groups.dropFirst(6))
        let stored = details.faces ?? []
        faceRows = stored.enumerated().map { index, face in
            let base = "/images/\(details.id)/faces/\(index + 1)"
            return FaceRow(
                number: index + 1, crop: base, person: face.person.map { $0.name ?? "Person \($0.id)" },
                personURL: face.person.map { "/people/\($0.id)" }, personID: face.person?.id,
                whoAction: base + "/person", notAction: base + "/not", hideAction: base + "/hide")
        }
        if let width = image.width, let height = image.height, width > 0, height > 0, !stored.isEmpty {
            faceViewBox = "0 0 \(width) \(height)"
            faces = stored.map { face in
                let label = face.person.map { $0.name ?? "person \($0.id)" }
                let below = face.y + face.height + Double(height) * 0.04
                return FaceOutline(
                    x: String(format: "%.1f", face.x), y: String(format: "%.1f", face.y),
                    width: String(format: "%.1f", face.width), height: String(format: "%.1f", face.height),
                    title: (label ?? "face") + " \(LabelText.confidence(face.confidence))", label: label,
                    labelY: String(format: "%.1f", below <= Double(height) ? below : max(Double(height) * 0.04, face.y - Double(height) * 0.01)),
                    fontSize: String(format: "%.1f", Double(max(width, height)) * 0.03))
            }
            faceCount = "\(stored.count) face\(stored.count == 1 ? "" : "s")"
        } else {
            faceViewBox = "0 0 1 1"
            faces = []
            faceCount = nil
        }
        swatches = details.colors.map { color in
            Swatch(hex: "#" + color.hex, share: "\(Int((color.weight * 100).rounded()))%", url: URLQuery.link("/", ["color": color.hex]))
        }

        // The photo's near-duplicate group: every photo joined to it by a chain of pairs at or
        // above the threshold, as on the Duplicates page; the keeper (largest resolution) first.
        let hits = details.similar?.hits ?? []
        let threshold = SQLiteIndex.defaultDuplicateThreshold
        let group = details.duplicates
        let keeperID = group?.keeper.imageID
        duplicates = (group?.members ?? []).filter { $0.imageID != details.id }.map { member in
            let size = member.width.flatMap { width in member.height.map { "\(width) × \($0)" } } ?? ""
            return Tile(
                id: member.imageID, path: member.path, size: member.size, modified: nil, width: member.width,
                height: member.height, labels: details.similarLabels[member.imageID] ?? [],
                caption: "\(size) · \(LabelText.bytes(member.size))",
                badge: member.imageID == keeperID ? "keep" : LabelText.confidence(member.score), isKeeper: member.imageID == keeperID)
        }
        if let group {
            let others = group.members.count - 1
            let count = (group.isComplete ? "" : "at least ") + "\(others) near-duplicate\(others == 1 ? "" : "s")"
            let keep = keeperID == details.id
                ? "This photo has the largest resolution: keep it."
                : "The copy with the most pixels is marked “keep”; the others show their score against it."
            duplicateNote = "This photo and \(count). \(keep)"
                + (group.isComplete ? "" : " The Duplicates page lists the whole group.")
        } else {
            duplicateNote = ""
        }
        let grouped = Set(group?.members.map(\.imageID) ?? [])
        similar = hits.filter { $0.score < threshold && !grouped.contains($0.imageID) }.prefix(ImageController.similarCount).map { hit in
            Tile(hit, labels: details.similarLabels[hit.imageID] ?? [], badge: LabelText.confidence(hit.score))
        }
        apiURL = "/api/images/\(details.id)"
    }

    static func date(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().dateSeparator(.dash).time(includingFractionalSeconds: false).timeSeparator(.colon)) + " UTC"
    }
}
