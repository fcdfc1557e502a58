import Foundation
import HTTPTypes
import Hummingbird
import TagIndex

/// The people pages and the gallery's only writes:
///
/// - `GET /people`: a face per person, named people first; `GET /api/people` the same as
///   `classify-tool people --format json`;
/// - `GET /people/{id}`: a person's photos, with forms to name them and merge another person in;
/// - `GET /people/{id}/face`, `GET /images/{id}/faces/{n}`: face crops (JPEG);
/// - `POST /people/{id}/name`, `POST /people/{id}/merge`, and per face of a photo
///   `POST /images/{id}/faces/{n}/person` ("who is this": an existing person by name or id moves
///   the face there; a new name names it), `.../not` (not this person), `.../hide` (not a face).
///
/// Every POST has passed ``CSRFMiddleware`` (the form's token is the session's) before it gets
/// here, and answers with a redirect to the page it came from (303), or an error page.
struct PeopleController: Sendable {
    let services: GalleryServices
    /// People shown on the People page at most (the rest by search).
    static let pageSize = 500

    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/people", use: list)
        router.get("/api/people") { _, _ in PeopleOutput(try await services.read { try await $0.people() }) }
        router.get("/people/:id", use: person)
        router.get("/people/:id/face", use: personFace)
        router.get("/images/:id/faces/:number", use: imageFace)
        router.post("/people/:id/name", use: name)
        router.post("/people/:id/merge", use: merge)
        router.post("/images/:id/faces/:number/person", use: faceIsPerson)
        router.post("/images/:id/faces/:number/not", use: faceIsNotPerson)
        router.post("/images/:id/faces/:number/hide", use: hideFace)
    }

    // MARK: Pages

    @Sendable func list(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let (people, waiting) = try await services.read { index in
            (try await index.people(), try await index.unassignedFaceCount())
        }
        return services.pages.response("people", PeopleView(people: people, waiting: waiting))
    }

    @Sendable func person(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let id = try Self.personID(context)
        let (people, page, labels) = try await services.read { index in
            let people = try await index.people()
            guard people.contains(where: { $0.id == id }) else {
                throw GalleryError(.notFound, "No person has the id \(id); the People page lists them.")
            }
            var query = Query()
            query.expression = .term(SearchTerm(String(id), kind: .person))
            query.limit = 200
            let page = try await index.search(query)
            return (people, page, try await index.labels(forImageIDs: page.hits.map(\.imageID)))
        }
        let person = people.first { $0.id == id }!
        let tiles = page.hits.map { Tile($0, labels: labels[$0.imageID] ?? []) }
        return services.pages.response("person", PersonView(person: person, people: people, tiles: tiles, total: page.totalCount, csrf: context.csrfToken))
    }

    // MARK: Face crops

    @Sendable func personFace(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let id = try Self.personID(context)
        let anchor = try await services.read { index -> (path: String, number: Int)? in
            guard let person = try await index.people().first(where: { $0.id == id }), let path = person.samplePath else { return nil }
            return (path, person.anchor.faceNumber)
        }
        guard let anchor else { throw GalleryError(.notFound, "No person has the id \(id).") }
        return try await crop(path: anchor.path, number: anchor.number + 1)
    }

    @Sendable func imageFace(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let (image, _) = try await services.image(id: ImageController.imageID(context))
        return try await crop(path: image.path, number: try Self.faceNumber(context))
    }

    private func crop(path: String, number: Int) async throws -> Response {
        let (image, faces) = try await services.read { index in (try await index.image(atPath: path), try await index.faces(forPath: path)) }
        guard let image, let faces, faces.indices.contains(number - 1) else {
            throw GalleryError(.notFound, "There is no face \(number) in this photo.")
        }
        guard let local = services.localFile(image.path).path else {
            return RenditionController.unavailable(GalleryError(.notFound, "\(image.path) cannot be found on this machine."))
        }
        let face = faces[number - 1]
        do {
            let jpeg = try await services.fileWork.run {
                try FaceCropRenderer().render(face, path: local, width: image.width, height: image.height, contentHash: image.contentHash)
            }
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "private, max-age=300"],
                body: .init(byteBuffer: ByteBuffer(bytes: jpeg)))
        } catch let error as GalleryError {
            return RenditionController.unavailable(error)
        } catch {
            return RenditionController.unavailable(GalleryError(.unprocessableContent, "\(image.path): \(error)"))
        }
    }

    // MARK: Writes

    @Sendable func name(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let id = try Self.personID(context)
        let name = try Self.field("name", context)
        try await correct(.name(person: id, name))
        return Self.redirect("/people/\(id)")
    }

    @Sendable func merge(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let id = try Self.personID(context)
        let other = try await resolve(try Self.field("with", context))
        try await correct(.merge([id, other]))
        // The merged person keeps the id of the one with more faces.
        let remaining = try await services.read { try await $0.people().map(\.id) }
        return Self.redirect("/people/\(remaining.contains(id) ? id : other)")
    }

    @Sendable func faceIsPerson(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let (image, imageID) = try await services.image(id: ImageController.imageID(context))
        let number = try Self.faceNumber(context)
        let text = try Self.field("person", context)
        if let person = try await existing(text) {
            try await correct(.move(path: image.path, face: number, to: person))
        } else {
            try await correct(.nameFace(path: image.path, face: number, text))
        }
        return Self.redirect("/images/\(imageID)")
    }

    @Sendable func faceIsNotPerson(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let (image, imageID) = try await services.image(id: ImageController.imageID(context))
        let person = try await resolve(try Self.field("person", context))
        try await correct(.notThisPerson(path: image.path, face: try Self.faceNumber(context), person: person))
        return Self.redirect("/images/\(imageID)")
    }

    @Sendable func hideFace(_ request: Request, context: GalleryRequestContext) async throws -> Response {
        let (image, imageID) = try await services.image(id: ImageController.imageID(context))
        try await correct(.hide(path: image.path, face: try Self.faceNumber(context)))
        return Self.redirect("/images/\(imageID)")
    }

    private func correct(_ request: PeopleRequest) async throws {
        _ = try await services.write { try await $0.correctPeople(request) }
    }

    /// The person a form names: an id, or a whole name (case and accents ignored); nil when none.
    private func existing(_ text: String) async throws -> Int64? {
        let directory = try await services.read { PeopleDirectory(people: try await $0.people()) }
        do {
            return try directory.person(text)?.id
        } catch let TagIndexError.invalidInput(sentence) {
            throw GalleryError(.badRequest, sentence.prefix(1).uppercased() + sentence.dropFirst() + ".")
        }
    }

    private func resolve(_ text: String) async throws -> Int64 {
        guard let id = try await existing(text) else { throw GalleryError(.badRequest, "No person is called '\(text)'; give a name or an id from the People page.") }
        return id
    }

    // MARK: Request parts

    static func personID(_ context: GalleryRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw GalleryError(.notFound, "There is no person at this address; people are named by their number.")
        }
        return id
    }

    static func faceNumber(_ context: GalleryRequestContext) throws -> Int {
        guard let text = context.parameters.get("number"), let number = Int(text), (1...10_000).contains(number) else {
            throw GalleryError(.notFound, "There is no face at this address; faces are numbered from 1.")
        }
        return number
    }

    static func field(_ name: String, _ context: GalleryRequestContext) throws -> String {
        guard let value = context.form[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !value.isEmpty else {
            throw GalleryError(.badRequest, "The form needs a value for '\(name)'.")
        }
        return value
    }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }
}

/// The People page.
struct PeopleView: PageView {
    struct Card: Sendable {
        var url: String
        var face: String
        var name: String
        var isNamed: Bool
        var counts: String
    }

    let title = "People"
    let section = "people"
    var cards: [Card]
    var summary: String
    var more: String?

    init(people: [PersonSummary], waiting: Int) {
        cards = people.prefix(PeopleController.pageSize).map { person in
            Card(
                url: "/people/\(person.id)", face: "/people/\(person.id)/face", name: person.name ?? "Person \(person.id)",
                isNamed: person.name != nil,
                counts: "\(LabelText.count(person.photoCount)) photo\(person.photoCount == 1 ? "" : "s")")
        }
        let named = people.filter { $0.name != nil }.count
        summary = people.isEmpty
            ? "No people yet: index photos with faces (classify-tool index) and similar faces are grouped into people."
            : "\(LabelText.count(people.count)) people, \(LabelText.count(named)) named; \(LabelText.count(waiting)) faces wait for a person (seen fewer than 3 times)."
        more = people.count > PeopleController.pageSize
            ? "The first \(PeopleController.pageSize) are shown; search person:NAME or person:ID for the others." : nil
    }
}

/// One person's page.
struct PersonView: PageView {
    struct Choice: Sendable {
        var value: String
    }

    var title: String
    let section = "people"
    var id: Int64
    var name: String
    var isNamed: Bool
    var face: String
    var counts: String
    var tiles: [Tile]
    var others: [Choice]
    var csrf: String
    var searchURL: String

    init(person: PersonSummary, people: [PersonSummary], tiles: [Tile], total: Int, csrf: String) {
        id = person.id
        name = person.name ?? ""
        isNamed = person.name != nil
        title = person.name ?? "Person \(person.id)"
        face = "/people/\(person.id)/face"
        counts = "\(LabelText.count(person.faceCount)) faces in \(LabelText.count(person.photoCount)) photos" + (total > tiles.count ? "; the newest \(tiles.count) shown" : "")
        self.tiles = tiles
        others = people.filter { $0.id != person.id }.prefix(PeopleController.pageSize).map { Choice(value: $0.name ?? String($0.id)) }
        self.csrf = csrf
        searchURL = "/?q=" + ("person:\(person.id)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
    }
}
