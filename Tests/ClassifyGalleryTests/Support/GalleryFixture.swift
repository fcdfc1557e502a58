import Classify
import ClassifyTestSupport
import Foundation
import Hummingbird
import TagIndex

@testable import ClassifyGallery

/// A small library of generated JPEG files, indexed directly (no model needed), in a fresh
/// temporary folder, with a gallery server over it.
///
///     beach/golden.jpg        800x600, golden retriever on grass; near-duplicate keeper
///     beach/golden-small.jpg  400x300, the same picture halved (its print scores ~0.99)
///     home/rotated.jpg        stored 800x600 with EXIF orientation 6: upright 600x800, a tabby
///     home/poodle.jpg         640x480, a poodle, with one face stored (for the overlay)
///     broken.jpg              the first 400 bytes of a JPEG, indexed as if whole (decodes no more)
///     gone.jpg                indexed, then deleted
///     bad.jpg                 a failed file (decode), never classified
///
/// Usage: `let fixture = try GalleryFixture(); defer { fixture.remove() }`
struct GalleryFixture: Sendable {
    static let model = ModelStamp(name: "lite0", version: "1")
    static let labels: [LabelDefinition] = [
        LabelDefinition(identifier: "animal", displayName: "Animal"),
        LabelDefinition(identifier: "dog", displayName: "Dog", synonyms: ["puppy"], parents: ["animal"]),
        LabelDefinition(identifier: "golden_retriever", displayName: "Golden Retriever", synonyms: ["golden"], parents: ["dog"]),
        LabelDefinition(identifier: "labrador_retriever", displayName: "Labrador Retriever", parents: ["dog"]),
        LabelDefinition(identifier: "poodle", displayName: "Poodle", parents: ["dog"]),
        LabelDefinition(identifier: "cat", displayName: "Cat", synonyms: ["kitty"], parents: ["animal"]),
        LabelDefinition(identifier: "tabby", displayName: "Tabby Cat", parents: ["cat"]),
        LabelDefinition(identifier: "outdoor", displayName: "Outdoor"),
        LabelDefinition(identifier: "grass", displayName: "Grass", parents: ["outdoor"]),
        LabelDefinition(identifier: "indoor", displayName: "Indoor"),
    ]

    let root: URL
    var photos: URL { root.appending(path: "photos") }
    var database: URL { root.appending(path: "index.sqlite") }
    var cache: URL { root.appending(path: "cache") }
    /// Image ids by file name.
    let ids: [String: Int64]

    init() throws {
        root = FileManager.default.temporaryDirectory.appending(path: "classify-gallery-\(UUID().uuidString.prefix(8))")
            .resolvingSymlinksInPath()
        let photos = root.appending(path: "photos")
        for folder in ["beach", "home"] {
            try FileManager.default.createDirectory(at: photos.appending(path: folder), withIntermediateDirectories: true)
        }
        var random = SeededRandom(seed: 14)
        func unit(_ vector: [Float]) -> [Float] {
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            return vector.map { $0 / norm }
        }
        // Features after a ReLU are non-negative; distinct photos then score around 0.75.
        let goldenPrint = unit(random.floats(FeaturePrint.dimension, in: 0...1))
        let smallPrint = unit(zip(goldenPrint, random.floats(FeaturePrint.dimension, in: 0...0.002)).map { $0 + $1 })
        let tabbyPrint = unit(random.floats(FeaturePrint.dimension, in: 0...1).map { $0 * $0 * $0 })
        let poodlePrint = unit(random.floats(FeaturePrint.dimension, in: 0...1).map { $0 * $0 * $0 })

        let golden = Self.picture(width: 800, height: 600, top: [90, 160, 70], bottom: [220, 170, 60])
        let files: [(name: String, bytes: [UInt8], width: Int, height: Int, labels: [(String, Double)], print: [Float], color: IndexedColor)] = [
            ("beach/golden.jpg", try JPEGEncoder(quality: 90).encode(golden), 800, 600,
             [("golden_retriever", 0.9), ("dog", 0.95), ("animal", 0.97), ("grass", 0.6), ("outdoor", 0.7)], goldenPrint,
             IndexedColor(red: 220, green: 170, blue: 60, weight: 0.5)),
            ("beach/golden-small.jpg", try JPEGEncoder(quality: 80).encode(golden.downscaled(toFit: 400)), 400, 300,
             [("golden_retriever", 0.88), ("dog", 0.94), ("animal", 0.96), ("grass", 0.5), ("outdoor", 0.6)], smallPrint,
             IndexedColor(red: 220, green: 170, blue: 60, weight: 0.5)),
            ("home/rotated.jpg", try Self.rotatedJPEG(), 600, 800,
             [("tabby", 0.75), ("cat", 0.8), ("animal", 0.82), ("indoor", 0.9)], tabbyPrint,
             IndexedColor(red: 40, green: 60, blue: 200, weight: 0.7)),
            ("home/poodle.jpg", try JPEGEncoder().encode(Self.picture(width: 640, height: 480, top: [240, 240, 240], bottom: [60, 60, 60])), 640, 480,
             [("poodle", 0.85), ("dog", 0.88), ("animal", 0.9), ("indoor", 0.3)], poodlePrint,
             IndexedColor(red: 240, green: 240, blue: 240, weight: 0.5)),
            ("broken.jpg", Array(try JPEGEncoder().encode(golden).prefix(400)), 800, 600,
             [("grass", 0.4), ("outdoor", 0.5)], unit(random.floats(FeaturePrint.dimension, in: 0...1)),
             IndexedColor(red: 0, green: 200, blue: 0, weight: 1)),
            ("gone.jpg", try JPEGEncoder().encode(golden.downscaled(toFit: 200)), 200, 150,
             [("labrador_retriever", 0.6), ("dog", 0.7), ("animal", 0.75)], unit(random.floats(FeaturePrint.dimension, in: 0...1)),
             IndexedColor(red: 10, green: 10, blue: 10, weight: 1)),
        ]
        var batch: [IndexEntry] = []
        let modified = Date(timeIntervalSince1970: 1_750_000_000)
        for (offset, file) in files.enumerated() {
            let url = photos.appending(path: file.name)
            try Data(file.bytes).write(to: url)
            batch.append(.classified(ImageClassification(
                path: url.path, size: Int64(file.bytes.count), modificationTime: modified.addingTimeInterval(Double(offset) * 86_400),
                contentHash: ContentHash.hex(of: file.bytes), width: file.width, height: file.height, model: Self.model,
                observations: file.labels.map { LabelConfidence(identifier: $0.0, confidence: $0.1) },
                featurePrint: file.print, dominantColors: [file.color],
                faces: file.name == "home/poodle.jpg" ? [Self.poodleFace] : nil,
                metadata: file.name == "beach/golden.jpg" ? Self.goldenMetadata : nil)))
        }
        batch.append(.failed(ImageFailure(
            path: photos.appending(path: "bad.jpg").path, size: 12, modificationTime: modified, contentHash: nil,
            model: Self.model, stage: "decode", reason: "The data is not a JPEG or PNG image.")))
        let index = try SQLiteIndex(url: root.appending(path: "index.sqlite"))
        try index.replaceTaxonomy(Self.labels, model: Self.model)
        try index.write(batch: batch)
        try FileManager.default.removeItem(at: photos.appending(path: "gone.jpg"))
        var ids: [String: Int64] = [:]
        for file in files.map(\.name) + ["bad.jpg"] {
            ids[(file as NSString).lastPathComponent] = try index.imageID(forPath: photos.appending(path: file).path)
        }
        self.ids = ids
    }

    func id(_ name: String) -> Int64 { ids[name]! }

    /// The face stored with poodle.jpg.
    /// What golden.jpg says it is: taken in Paris by an iPhone.
    static let goldenMetadata = IndexedMetadata(
        taken: TakenDate(local: "2023-06-01T14:30:05", utcOffsetMinutes: 120, source: .exif),
        latitude: 48.8584, longitude: 2.2945, altitude: 35, cameraMake: "Apple", cameraModel: "iPhone 13",
        place: PlaceReference(id: 2_988_507, countryCode: "FR", admin1Code: "11"))

    static let poodleFace = IndexedFace(
        x: 200, y: 100, width: 120, height: 140, confidence: 0.91, descriptor: (0..<128).map { Float(sin(Double($0))) / 8 })

    /// A server over the fixture (read-only index, thumbnails cached in `cache`).
    func server(accessToken: String? = nil) async throws -> GalleryServer {
        var configuration = GalleryConfiguration(databaseURL: database)
        configuration.accessToken = accessToken
        configuration.cacheDirectory = cache
        configuration.port = 0
        return try await GalleryServer(configuration: configuration)
    }

    /// The application to test in-process; `hosts` limits the accepted Host headers.
    func application(hosts: HostCheck = HostCheck(), accessToken: String? = nil) async throws -> some ApplicationProtocol {
        Application(router: try await server(accessToken: accessToken).router(hosts: hosts))
    }

    func remove() { removeTree(atPath: root.path) }

    /// A picture whose top half is one color and bottom half another, with a diagonal stripe.
    static func picture(width: Int, height: Int, top: [UInt8], bottom: [UInt8]) -> DecodedImage {
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let color = abs(x * height / width - y) < height / 20 ? [255, 255, 255] : (y < height / 2 ? top : bottom)
                pixels.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: color)
            }
        }
        return DecodedImage(width: width, height: height, pixels: pixels, format: .jpeg)
    }

    /// 800x600 stored pixels, left half red and right half blue, with EXIF orientation 6 (rotate
    /// 90° clockwise to show): upright it is 600x800, red on top.
    static func rotatedJPEG() throws -> [UInt8] {
        var pixels = [UInt8](repeating: 0, count: 800 * 600 * 3)
        for y in 0..<600 {
            for x in 0..<800 {
                let offset = (y * 800 + x) * 3
                if x < 400 { pixels[offset] = 220 } else { pixels[offset + 2] = 220 }
            }
        }
        return try TestJPEG.encode(pixels, width: 800, height: 600, quality: 90, app1: TestEXIF.jpegAPP1(TestEXIF.tiff(orientation: 6)))
    }
}
