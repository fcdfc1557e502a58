import Foundation
import HTTPTypes
import Hummingbird
import TagIndex

/// `GET /images/{id}/thumbnail` and `GET /images/{id}/preview`: upright JPEGs made from the
/// indexed file (never the file itself), with an `ETag` of the content hash and size, so a
/// browser revalidates with a 304 that reads nothing but one index row.
struct RenditionController: Sendable {
    let services: GalleryServices

    func addRoutes(to router: Router<GalleryRequestContext>) {
        for rendition in Rendition.allCases {
            router.get("/images/:id/\(rendition.rawValue)") { request, context in
                try await respond(rendition, request: request, context: context)
            }
        }
    }

    func respond(_ rendition: Rendition, request: Request, context: GalleryRequestContext) async throws -> Response {
        let (image, _) = try await services.image(id: ImageController.imageID(context))
        let version = Tile.fileVersion(size: image.size, modified: image.modificationTime)
        // The page linked this exact file state: the bytes behind the URL never change.
        let isCurrentVersion = (try QueryParameters(request.uri.query))["v"] == version
        let entityTag = image.contentHash.map { RenditionStore.entityTag(rendition, contentHash: $0) }
        let caching = isCurrentVersion ? "private, max-age=31536000, immutable" : "private, no-cache"
        if let entityTag, let asked = request.headers[.ifNoneMatch],
            asked.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == entityTag || $0 == "*" })
        {
            return Response(status: .notModified, headers: [.eTag: entityTag, .cacheControl: caching])
        }
        let made: RenditionBytes
        do {
            made = try await services.renditions.bytes(rendition, of: image, at: services.localFile(image.path))
        } catch let error as GalleryError {
            // An <img> shows the placeholder; the status and the header still say why.
            return Self.unavailable(error)
        }
        var headers: HTTPFields = [.contentType: "image/jpeg"]
        if made.matchesIndex, let entityTag {
            headers[.eTag] = entityTag
            headers[.cacheControl] = caching
        } else {
            headers[.cacheControl] = "no-store"
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: made.bytes)))
    }

    /// The "cannot show this photo" picture with the error's status and its message in a header.
    static func unavailable(_ error: GalleryError) -> Response {
        let asset = StaticAssets.assets["unavailable.svg"]!
        var headers: HTTPFields = [.contentType: asset.contentType, .cacheControl: "no-store"]
        if let name = HTTPField.Name("X-Classify-Error") {
            // Header values are one line of visible ASCII.
            headers[name] = String(error.message.unicodeScalars.map { $0.isASCII && $0.value >= 32 && $0.value < 127 ? Character($0) : "?" })
        }
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
    }
}
