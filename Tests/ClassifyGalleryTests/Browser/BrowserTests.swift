import Classify
import ClassifyIndexing
import Foundation
import Hummingbird
import HummingbirdTesting
import TagIndex
import TagIndexPostgres
import Testing

@testable import ClassifyGallery

/// The gallery in a real headless Chromium: `Scripts/browser-test` walks the timeline and a place
/// facet, types a query, waits for the thumbnails, uses a facet, opens a photo, follows a similar
/// one, and saves screenshots at laptop and phone width to `.build/browser-artifacts/`. The photos
/// are classified by the real model: the three committed test photos and a half-size copy of each
/// (near-duplicates), five photos that state their date and place, plus 125
/// ImageNet photos from `../shared` when it is there (the screenshots in docs/ come from that run).
/// The walk runs again over a PostgreSQL copy of the index where Scripts/dev-postgres can start one.
///
/// Needs Debian's chromium and chromium-driver and a Python with selenium: `Scripts/bootstrap
/// --browser` installs them (`.ci/run` does). Without them the test is skipped, saying so.
@Suite struct BrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The Python with selenium and the driver, or why the test cannot run here.
    static let environment: Result<(python: String, driver: String), BrowserUnavailable> = {
        let processEnvironment = ProcessInfo.processInfo.environment
        let cacheHome = processEnvironment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (processEnvironment["HOME"] ?? NSHomeDirectory()) + "/.cache"
        let python = processEnvironment["CLASSIFY_BROWSER_PYTHON"] ?? cacheHome + "/classify-tool/browser-venv/bin/python"
        let manager = FileManager.default
        guard manager.isExecutableFile(atPath: python) else {
            return .failure(BrowserUnavailable(reason: "no Python with selenium at \(python)"))
        }
        guard let driver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first(where: manager.isExecutableFile(atPath:)),
            manager.isExecutableFile(atPath: "/usr/bin/chromium")
        else { return .failure(BrowserUnavailable(reason: "no chromium and chromium-driver in /usr/bin")) }
        return .success((python, driver))
    }()

    struct BrowserUnavailable: Error, CustomStringConvertible {
        var reason: String
        var description: String { "browser test skipped: \(reason); install them with Scripts/bootstrap --browser" }
    }

    static var isAvailable: Bool {
        if case .failure(let why) = environment { print(why) ; return false }
        return true
    }

    @Test(.enabled(if: BrowserTests.isAvailable, "needs chromium, chromium-driver and selenium (Scripts/bootstrap --browser)"))
    func aPersonSearchesOpensAPhotoAndFollowsASimilarOne() async throws {
        let (python, driver) = try Self.environment.get()
        let root = FileManager.default.temporaryDirectory.appending(path: "classify-browser-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: root) }
        let photos = root.appending(path: "photos")
        let richLibrary = try Self.makeLibrary(in: photos)
        let database = root.appending(path: "index.sqlite")
        let models = Self.packageRoot.appending(path: "Models")
        let report = try await LibraryIndexer(index: try SQLiteIndex(url: database))
            .run(
                try LibraryIndexer.Options(folders: [photos.path]), classifier: try ImageClassifier(),
                faceDetector: FaceDetector(model: try FaceDetectorModel(contentsOf: models.appending(path: "blazeface"))),
                faceRecognizer: OnDemandRecognizer { try FaceRecognizer(contentsOf: models.appending(path: "face-recognition")) })
        #expect(report.failures.isEmpty)

        let artifacts = Self.packageRoot.appending(path: ".build/browser-artifacts")
        let query = richLibrary ? "dog" : "cat OR espresso"
        try await Self.browse(.sqlite(database), cache: root.appending(path: "cache"), artifacts: artifacts, query: query, python, driver)
        // The same walk over a PostgreSQL copy of the index, where the cluster of
        // Scripts/dev-postgres can run (the PostgreSQL route tests say why when it cannot).
        if GalleryPostgres.isAvailable {
            let copy = try await GalleryPostgres.copy(of: database)
            try await Self.browse(
                .postgres(copy), cache: root.appending(path: "cache-postgresql"), artifacts: artifacts.appending(path: "postgresql"),
                query: query, python, driver)
        }
    }

    /// Runs `Scripts/browser-test` against a live gallery over `location`; screenshots go to `artifacts`.
    static func browse(_ location: IndexLocation, cache: URL, artifacts: URL, query: String, _ python: String, _ driver: String) async throws {
        var configuration = GalleryConfiguration(location: location)
        configuration.opener = .standard
        configuration.cacheDirectory = cache
        let server = try await GalleryServer(configuration: configuration)
        let app = Application(router: server.router(hosts: HostCheck()))
        let (status, output) = try await app.test(.live) { client in
            try await Self.run(python, [
                Self.packageRoot.appending(path: "Scripts/browser-test").path,
                "--url", "http://127.0.0.1:\(client.port!)/", "--out", artifacts.path, "--query", query, "--chromedriver", driver,
            ])
        }
        print(output)
        #expect(status == 0, "Scripts/browser-test failed over \(location):\n\(output)")
        for name in [
            "library-laptop.png", "timeline-laptop.png", "search-laptop.png", "detail-laptop.png", "faces-laptop.png", "people-laptop.png",
            "search-phone.png", "detail-phone.png",
        ] {
            #expect(FileManager.default.fileExists(atPath: artifacts.appending(path: name).path), "missing screenshot \(name) over \(location)")
        }
        print("browser test: screenshots over \(location) in \(artifacts.path)")
    }

    /// Copies the test photos (and a half-size copy of each) and, when `../shared` is there, 125
    /// ImageNet photos into `folder`; true when the ImageNet photos were added.
    static func makeLibrary(in folder: URL) throws -> Bool {
        let manager = FileManager.default
        for sub in ["2023/garden", "2024/trip", "phone", "camera"] {
            try manager.createDirectory(at: folder.appending(path: sub), withIntermediateDirectories: true)
        }
        let fixtures = packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/photos")
        for name in ["cat-chelsea.jpg", "coffee-cup.jpg", "rocket.jpg"] {
            let source = fixtures.appending(path: name)
            try manager.copyItem(at: source, to: folder.appending(path: "2024/trip/\(name)"))
            let image = try ImageDecoder().decode(contentsOf: source)
            let copy = try JPEGEncoder(quality: 75).encode(image.downscaled(toFit: max(image.width, image.height) / 2))
            try Data(copy).write(to: folder.appending(path: "phone/small-\(name)"))
        }
        // A portrait, for naming a face and searching for the person.
        try manager.copyItem(
            at: packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/faces/astronaut.png"), to: folder.appending(path: "camera/astronaut.png"))
        // Photos that state when and where they were taken (Paris, Tokyo, Sydney, New York, Kyoto),
        // for the timeline and the place facets.
        let metadata = packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/metadata")
        for name in ["jpeg-full.jpg", "png-exif.png", "webp-exif.webp", "tiff-digitized.tif", "sidecar.jpg", "sidecar.jpg.xmp"] {
            try manager.copyItem(at: metadata.appending(path: name), to: folder.appending(path: "camera/\(name)"))
        }
        let imagenet = packageRoot.deletingLastPathComponent().appending(path: "shared/data/imagenet-calib")
        guard let names = try? manager.contentsOfDirectory(atPath: imagenet.path).filter({ $0.hasSuffix(".JPEG") }).sorted(),
            !names.isEmpty
        else { return false }
        for (position, name) in names.enumerated() where position % 4 == 0 {
            let sub = ["2023/garden", "2024/trip", "phone"][position % 3]
            try manager.copyItem(at: imagenet.appending(path: name), to: folder.appending(path: "\(sub)/IMG_\(1000 + position).jpg"))
        }
        return true
    }

    /// Runs a program to its end without blocking a thread; its status and its output (both streams).
    static func run(_ executable: String, _ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = root(for: "browser-test-output")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        try handle.close()
        defer { try? FileManager.default.removeItem(at: output) }
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    private static func root(for name: String) -> URL {
        FileManager.default.temporaryDirectory.appending(path: "\(name)-\(UUID().uuidString.prefix(8)).log")
    }
}
