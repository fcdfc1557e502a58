import Classify
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ClassifyGallery

@Suite struct RenditionRouteTests {
    @Test func thumbnailIsAnUprightJPEGOfAbout320Pixels() async throws {
        try await withGallery { fixture, client in
            let response = try await client.get("/images/\(fixture.id("rotated.jpg"))/thumbnail")
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "image/jpeg")
            expectProtectiveHeaders(response)
            let image = try ImageDecoder().decode(response.bytes)
            // Stored 800x600 with orientation 6: upright 600x800, so 240x320, red on top.
            #expect(image.width == 240 && image.height == 320)
            let top = Array(image.pixels[(10 * 240 + 120) * 3..<(10 * 240 + 120) * 3 + 3])
            let bottom = Array(image.pixels[(310 * 240 + 120) * 3..<(310 * 240 + 120) * 3 + 3])
            #expect(top[0] > 180 && top[2] < 60, "top is red: \(top)")
            #expect(bottom[2] > 180 && bottom[0] < 60, "bottom is blue: \(bottom)")
            let preview = try ImageDecoder().decode(try await client.get("/images/\(fixture.id("golden.jpg"))/preview").bytes)
            #expect(preview.width == 800 && preview.height == 600, "smaller than 1600: kept at full size")
        }
    }

    @Test func thumbnailsAreCachedOnDiskByContentHashAndRevalidatedWithETags() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let server = try await fixture.server()
        let app = Application(router: server.router(hosts: HostCheck()))
        try await app.test(.router) { client in
            let id = fixture.id("poodle.jpg")
            let first = try await client.get("/images/\(id)/thumbnail")
            let tag = try #require(first.headers[.eTag])
            #expect(first.headers[.cacheControl] == "private, no-cache")
            let image = try await server.services.image(id: id).image
            let file = server.services.renditions.cacheFile(.thumbnail, contentHash: image.contentHash!)
            #expect(file.path.hasPrefix(fixture.cache.path + "/" + image.contentHash!.prefix(2) + "/"))
            #expect(try Data(contentsOf: file) == Data(first.bytes))
            // Again: from the disk cache, not made again.
            let second = try await client.get("/images/\(id)/thumbnail")
            #expect(second.bytes == first.bytes)
            #expect(server.services.renditions.renderCount.withLock { $0 } == 1)
            // The browser's revalidation: 304, no body.
            let revalidated = try await client.get("/images/\(id)/thumbnail", headers: [.ifNoneMatch: tag])
            #expect(revalidated.status == .notModified)
            #expect(revalidated.body.readableBytes == 0)
            expectProtectiveHeaders(revalidated)
            // The versioned URL the pages link may be kept for good.
            let version = Tile.fileVersion(size: image.size, modified: image.modificationTime)
            let versioned = try await client.get("/images/\(id)/thumbnail?v=\(version)")
            #expect(versioned.headers[.cacheControl] == "private, max-age=31536000, immutable")
        }
    }

    @Test func concurrentRequestsMakeAThumbnailOnce() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        let server = try await fixture.server()
        let app = Application(router: server.router(hosts: HostCheck()))
        try await app.test(.router) { client in
            let id = fixture.id("golden.jpg")
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<24 {
                    group.addTask { try await client.get("/images/\(id)/thumbnail").body.readableBytes }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes.count == 24 && Set(sizes).count == 1 && sizes[0] > 0)
            #expect(server.services.renditions.renderCount.withLock { $0 } == 1)
        }
    }

    @Test func brokenAndDeletedFilesAnswerWithAPlaceholderAndTheReason() async throws {
        try await withGallery { fixture, client in
            let broken = try await client.get("/images/\(fixture.id("broken.jpg"))/thumbnail")
            #expect(broken.status == .unprocessableContent)
            #expect(broken.headers[.contentType] == "image/svg+xml")
            #expect(broken.headers[.cacheControl] == "no-store")
            #expect(broken.text.contains("cannot show this photo"))
            #expect(broken.headers[HTTPField.Name("X-Classify-Error")!]?.contains("image data ends too early") == true)
            expectProtectiveHeaders(broken)
            let gone = try await client.get("/images/\(fixture.id("gone.jpg"))/preview")
            #expect(gone.status == .notFound)
            #expect(gone.headers[.contentType] == "image/svg+xml")
            let failed = try await client.get("/images/\(fixture.id("bad.jpg"))/thumbnail")
            #expect(failed.status == .notFound)
            // The server is still answering.
            #expect(try await client.get("/images/\(fixture.id("poodle.jpg"))/thumbnail").status == .ok)
        }
    }

    @Test func aFileChangedSinceIndexingIsShownButNotCached() async throws {
        try await withGallery { fixture, client in
            let path = fixture.photos.appending(path: "home/poodle.jpg")
            let changed = try JPEGEncoder().encode(GalleryFixture.picture(width: 300, height: 200, top: [0, 0, 0], bottom: [255, 255, 255]))
            try Data(changed).write(to: path)
            let response = try await client.get("/images/\(fixture.id("poodle.jpg"))/thumbnail")
            #expect(response.status == .ok)
            #expect(response.headers[.eTag] == nil)
            #expect(response.headers[.cacheControl] == "no-store")
            #expect(try ImageDecoder().decode(response.bytes).width == 300)
        }
    }

    @Test func staticAssetsAreVersionedAndUnknownOnesAreNotFound() async throws {
        try await withGallery { _, client in
            let link = StaticAssets.link("gallery.css")
            let css = try await client.get(link)
            #expect(css.status == .ok)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(css.headers[.cacheControl] == "public, max-age=31536000, immutable")
            expectProtectiveHeaders(css)
            let script = try await client.get(StaticAssets.link("gallery.js"))
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(try await client.get("/static/nothing.js").status == .notFound)
        }
    }
}
