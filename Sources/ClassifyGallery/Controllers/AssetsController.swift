import Hummingbird

/// `GET /static/{name}`: the stylesheet, script and icons compiled into the binary.
struct AssetsController: Sendable {
    func addRoutes(to router: Router<GalleryRequestContext>) {
        router.get("/static/:name") { request, context -> Response in
            guard let name = context.parameters.get("name"), let asset = StaticAssets.assets[name] else {
                throw GalleryError(.notFound, "There is no such file.")
            }
            let entityTag = "\"\(asset.version)\""
            let versioned = (try QueryParameters(request.uri.query))["v"] == asset.version
            let caching = versioned ? "public, max-age=31536000, immutable" : "no-cache"
            if request.headers[.ifNoneMatch] == entityTag {
                return Response(status: .notModified, headers: [.eTag: entityTag, .cacheControl: caching])
            }
            return Response(
                status: .ok, headers: [.contentType: asset.contentType, .eTag: entityTag, .cacheControl: caching],
                body: .init(byteBuffer: ByteBuffer(bytes: asset.bytes)))
        }
    }
}
