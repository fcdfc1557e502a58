import Classify
import ClassifySupport
import ClassifyTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import TagIndex
import Testing

@testable import ClassifyGallery

#if canImport(Glibc)
    import Glibc
#endif

/// Photos whose names are not UTF-8 or hold a newline: URLs name them by id, pages show a
/// readable name, the API carries the exact bytes, and the pictures are served from the file.
@Suite struct ByteNameRouteTests {
    static let names: [[UInt8]] = [
        Array("caf".utf8) + [0xE9] + Array(".jpg".utf8),
        Array("new\nline.jpg".utf8),
    ]

    /// A fresh folder with the two photos, indexed directly (no model needed).
    struct Library {
        let root: URL
        var database: URL { root.appending(path: "index.sqlite") }
        /// Raw path bytes by image id.
        var paths: [Int64: [UInt8]] = [:]

        init() throws {
            root = FileManager.default.temporaryDirectory.appending(path: "classify-gallery-bytes-\(UUID().uuidString.prefix(8))")
                .resolvingSymlinksInPath()
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            let jpeg = try JPEGEncoder(quality: 85).encode(GalleryFixture.picture(width: 320, height: 240, top: [200, 40, 40], bottom: [40, 40, 200]))
            let index = try SQLiteIndex(url: database)
            try index.replaceTaxonomy(GalleryFixture.labels, model: GalleryFixture.model)
            var batch: [IndexEntry] = []
            for name in ByteNameRouteTests.names {
                let raw = Array(root.path.utf8) + [UInt8(ascii: "/")] + name
                let fd = (raw + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
                try #require(fd >= 0)
                _ = jpeg.withUnsafeBytes { write(fd, $0.baseAddress!, $0.count) }
                close(fd)
                batch.append(.classified(ImageClassification(
                    path: RawPath.string(fromBytes: raw), size: Int64(jpeg.count), modificationTime: Date(timeIntervalSince1970: 1_750_000_000),
                    contentHash: ContentHash.hex(of: jpeg) + String(batch.count), width: 320, height: 240, model: GalleryFixture.model,
                    observations: [LabelConfidence(identifier: "poodle", confidence: 0.8)], featurePrint: nil, dominantColors: [])))
            }
            try index.write(batch: batch)
            for name in ByteNameRouteTests.names {
                let raw = Array(root.path.utf8) + [UInt8(ascii: "/")] + name
                paths[try #require(try index.imageID(forPath: RawPath.string(fromBytes: raw)))] = raw
            }
        }

        func application() async throws -> some ApplicationProtocol {
            var configuration = GalleryConfiguration(databaseURL: database)
            configuration.cacheDirectory = root.appending(path: "cache")
            configuration.port = 0
            return Application(router: try await GalleryServer(configuration: configuration).router(hosts: HostCheck()))
        }
    }

    /// The exact bytes of a path in an API object: `pathBytes` when present, else `path`.
    static func bytes(_ object: [String: Any]) -> [UInt8]? {
        if let encoded = object["pathBytes"] as? String { return Data(base64Encoded: encoded).map(Array.init) }
        return (object["path"] as? String).map { Array($0.utf8) }
    }

    @Test func apiPagesAndPicturesReachFilesWithByteNames() async throws {
        let library = try Library()
        defer { removeTree(atPath: library.root.path) }
        try #require(library.paths.count == 2)
        try await library.application().test(.router) { client in
            for (id, raw) in library.paths {
                let api = try await client.get("/api/images/\(id)")
                #expect(api.status == .ok)
                #expect(Self.bytes(api.object) == raw)
                #expect(api.object["format"] as? String == "JPEG", "the file was opened by its bytes")
                let thumbnail = try await client.get("/images/\(id)/thumbnail")
                #expect(thumbnail.status == .ok)
                #expect(thumbnail.bytes.starts(with: [0xFF, 0xD8, 0xFF]))
                let page = try await client.get("/images/\(id)")
                #expect(page.status == .ok)
                #expect(!page.text.contains("cannot be read any more"))
                #expect(!page.text.unicodeScalars.contains { $0.value >= 0x10FF80 }, "no escape scalars on the page")
            }
            let latin1 = try #require(library.paths.first { $0.value.contains(0xE9) }?.key)
            #expect(try await client.get("/images/\(latin1)").text.contains("<h1>caf\u{FFFD}.jpg</h1>"))
            let search = try await client.get("/api/search?q=poodle").object
            let results = try #require(search["results"] as? [[String: Any]])
            #expect(Set(results.compactMap(Self.bytes)) == Set(library.paths.values))
        }
    }
}
