import CClassifyCodecs
import CClassifyTestEncoders
import Classify
import Foundation
import TagIndex
import Testing
@testable import ClassifyIndexing

/// Similarity, near-duplicates and color search on the license-clean photos and copies of them
/// made here (half size, recompressed, cropped, brightened), classified by the shipped model.
@Suite(.serialized)
struct SimilarPhotosTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let photos = repository.appending(path: "Tests/ClassifyTests/Fixtures/photos")
    static let model: ImageClassifierModel = try! ImageClassifierModel(contentsOf: repository.appending(path: "Models/efficientnet-lite0"))
    static let names = ["cat-chelsea", "coffee-cup", "rocket"]

    struct EncodingFailure: Error {}

    static func jpeg(_ pixels: [UInt8], width: Int, height: Int, quality: Int) throws -> Data {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = cls_message()
        var options = cls_test_jpeg_options()
        options.width = UInt32(width)
        options.height = UInt32(height)
        options.components = 3
        options.quality = Int32(quality)
        guard cls_test_encode_jpeg(&options, pixels, &bytes, &size, &message) == CLS_OK, let bytes else { throw EncodingFailure() }
        defer { cls_test_free(bytes) }
        return Data(bytes: bytes, count: size)
    }

    /// 2x2 box average.
    static func half(_ image: DecodedImage) -> (pixels: [UInt8], width: Int, height: Int) {
        let width = image.width / 2, height = image.height / 2
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<3 {
                    var sum = 0
                    for (dy, dx) in [(0, 0), (0, 1), (1, 0), (1, 1)] { sum += Int(image.pixels[((2 * y + dy) * image.width + 2 * x + dx) * 3 + c]) }
                    pixels[(y * width + x) * 3 + c] = UInt8((sum + 2) / 4)
                }
            }
        }
        return (pixels, width, height)
    }

    /// Central crop keeping 92% of each side, brightened by 12%.
    static func cropBrighten(_ image: DecodedImage) -> (pixels: [UInt8], width: Int, height: Int) {
        let left = image.width * 4 / 100, top = image.height * 4 / 100
        let width = image.width - 2 * left, height = image.height - 2 * top
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 3)
        for y in top..<(top + height) {
            for x in left..<(left + width) {
                for c in 0..<3 { pixels.append(UInt8(min(255, Double(image.pixels[(y * image.width + x) * 3 + c]) * 1.12))) }
            }
        }
        return (pixels, width, height)
    }

    /// Each photo, a half-size copy, a quality-40 recompression and a cropped, brighter copy in
    /// `folder`, plus two generated images (mostly blue, mostly red); indexed.
    static func makeLibrary() async throws -> (folder: URL, index: SQLiteIndex) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "similar-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appending(path: "copies"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appending(path: "colors"), withIntermediateDirectories: true)
        for name in names {
            let source = photos.appending(path: "\(name).jpg")
            try FileManager.default.copyItem(at: source, to: folder.appending(path: "\(name).jpg"))
            let image = try ImageDecoder().decode(contentsOf: source)
            let small = half(image)
            try jpeg(small.pixels, width: small.width, height: small.height, quality: 90).write(to: folder.appending(path: "copies/\(name)-half.jpg"))
            try jpeg(image.pixels, width: image.width, height: image.height, quality: 40).write(to: folder.appending(path: "copies/\(name)-q40.jpg"))
            let cropped = cropBrighten(image)
            try jpeg(cropped.pixels, width: cropped.width, height: cropped.height, quality: 85).write(to: folder.appending(path: "copies/\(name)-crop.jpg"))
        }
        for (name, main, other) in [("mostly-blue", (1, 42, 207), (220, 20, 20)), ("mostly-red", (220, 20, 20), (1, 42, 207))] as [(String, (UInt8, UInt8, UInt8), (UInt8, UInt8, UInt8))] {
            var pixels: [UInt8] = []
            for y in 0..<240 {
                for x in 0..<320 {
                    let color = y < 170 || x < 40 ? main : other
                    pixels += [color.0, color.1, color.2]
                }
            }
            try jpeg(pixels, width: 320, height: 240, quality: 90).write(to: folder.appending(path: "colors/\(name).jpg"))
        }
        let index = try SQLiteIndex.inMemory()
        _ = try await LibraryIndexer(index: index).run(try LibraryIndexer.Options(folders: [folder.path], jobs: 2), classifier: ImageClassifier(model: model))
        return (folder, index)
    }

    @Test func copiesAreNearestNeighboursAndGroupedWithTheOriginalKept() async throws {
        let (folder, index) = try await Self.makeLibrary()
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in Self.names {
            let original = folder.appending(path: "\(name).jpg").path
            let copies = ["half", "q40", "crop"].map { folder.appending(path: "copies/\(name)-\($0).jpg").path }
            let page = try index.similar(toPath: original)
            #expect(Set(page.hits.prefix(3).map(\.path)) == Set(copies), "\(name): \(page.hits.map { ($0.path, $0.score) })")
            #expect(page.hits.count == 13)
            // Each copy's nearest neighbour is another member of its family.
            for copy in copies {
                let nearest = try #require(try index.similar(toPath: copy).hits.first)
                #expect(nearest.path == original || copies.contains(nearest.path), "\(copy) -> \(nearest.path)")
            }
        }
        // The two generated two-color images share a layout and look alike to the network (~0.9):
        // only the photo groups are checked here.
        let groups = try index.duplicateGroups().filter { !$0.keeper.path.contains("/colors/") }
        #expect(groups.count == 3, "\(groups.map { $0.members.map(\.path) })")
        for group in groups {
            // Original, recompressed and cropped copies always; the half-size copy (192x128, below
            // the network's 224 input) joins when it still scores 0.8 with one of them.
            #expect(group.members.count >= 3)
            #expect(!group.keeper.path.contains("/copies/"))
            #expect(group.members.contains { $0.path.hasSuffix("-q40.jpg") } && group.members.contains { $0.path.hasSuffix("-crop.jpg") })
            let name = URL(fileURLWithPath: group.keeper.path).deletingPathExtension().lastPathComponent
            #expect(group.members.allSatisfy { $0.path.contains(name) })
        }
    }

    @Test func similarAndColorCombineWithLabelQueries() async throws {
        let (folder, index) = try await Self.makeLibrary()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cat = folder.appending(path: "cat-chelsea.jpg").path
        // The cat photo's best label selects the cat family, not the cup or the rocket.
        let label = try #require(try index.labels(forPath: cat).first).identifier
        let page = try index.similar(toPath: cat, query: Query(parsing: "\(label):0.5 under:\(folder.appending(path: "copies").path)"))
        #expect(!page.hits.isEmpty)
        #expect(page.hits.allSatisfy { $0.path.contains("/copies/cat-chelsea-") })
        // Any image, classified on the fly, finds its indexed original first.
        let probe = try ImageClassifier(model: Self.model).classify(contentsOf: Self.photos.appending(path: "rocket.jpg"))
        let byImage = try index.similar(to: probe.featurePrint.values, minimumScore: 0.5)
        #expect(byImage.hits.first?.path == folder.appending(path: "rocket.jpg").path)
        #expect(byImage.hits.first.map { $0.score > 0.999 } == true)
        #expect(byImage.hits.allSatisfy { $0.score >= 0.5 })
        // Color: the mostly-blue image outranks the mostly-red one for a blue query.
        let blue = try index.search(color: IndexedColor(hex: "012ACF")!)
        let ranked = blue.hits.map(\.path)
        let bluePath = folder.appending(path: "colors/mostly-blue.jpg").path, redPath = folder.appending(path: "colors/mostly-red.jpg").path
        #expect(ranked.first == bluePath)
        #expect(ranked.firstIndex(of: redPath).map { $0 > 0 } ?? true)
        let colors = try index.dominantColors(forPath: bluePath)
        #expect(colors.count >= 2 && colors[0].blue > 150 && colors[0].weight > 0.6)
        // Combined with a label query, only matching images are ranked.
        let catColor = try #require(try index.dominantColors(forPath: cat).first)
        let catColors = try index.search(color: catColor, query: Query(parsing: "\(label):0.5"))
        #expect(catColors.hits.count >= 4)
        #expect(catColors.hits.allSatisfy { $0.path.contains("cat-chelsea") })
    }
}
