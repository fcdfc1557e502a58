import Foundation
import Testing
@testable import Classify

/// The 5-point shape predictor and the face chip against dlib itself
/// (Scripts/make-face-recognition-golden, dlib-bin 20.0.1): landmarks within 0.5 px of dlib's
/// (which it rounds to whole pixels) and within 1e-3 px of the numpy twin's unrounded ones; chips
/// equal to dlib's on the recorded rows, with the same mean.
struct FaceLandmarkGoldenTests {
    struct Golden: Decodable {
        struct Photo: Decodable {
            struct Chip: Decodable { var size: Int; var padding: Double; var mean: Double; var rows: [String: [Int]] }
            var file: String, box: [Double], landmarks: [[Double]], twinLandmarks: [Double], chip: Chip
        }
        var photos: [Photo]
    }

    static let golden: Golden = {
        let url = Bundle.module.url(forResource: "golden-dlib", withExtension: "json", subdirectory: "Fixtures/face-recognition")!
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    static func image(_ file: String) throws -> DecodedImage {
        let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Fixtures/faces")!
        return try ImageDecoder().decode(contentsOf: url)
    }

    static func box(_ photo: Golden.Photo) -> PixelRect {
        PixelRect(x: photo.box[0], y: photo.box[1], width: photo.box[2] - photo.box[0], height: photo.box[3] - photo.box[1])
    }

    @Test func landmarksMatchDlib() throws {
        #expect(Self.golden.photos.count == 2)
        for photo in Self.golden.photos {
            let points = ShippedLandmarkModel.model.landmarks(in: try Self.image(photo.file), box: Self.box(photo))
            #expect(points.count == 5)
            for (index, point) in points.enumerated() {
                #expect(abs(point.x - photo.landmarks[index][0]) <= 0.5 && abs(point.y - photo.landmarks[index][1]) <= 0.5,
                        "\(photo.file) point \(index): \(point) vs dlib \(photo.landmarks[index])")
                #expect(abs(point.x - photo.twinLandmarks[2 * index]) < 1e-3 && abs(point.y - photo.twinLandmarks[2 * index + 1]) < 1e-3,
                        "\(photo.file) point \(index) vs the twin")
            }
        }
    }

    @Test func chipsMatchDlib() throws {
        for photo in Self.golden.photos {
            let landmarks = photo.landmarks.map { FacePoint(x: $0[0], y: $0[1]) }
            let chip = try #require(FaceChip.extract(from: try Self.image(photo.file), landmarks: landmarks,
                                                     size: photo.chip.size, padding: photo.chip.padding))
            #expect(chip.width == 150 && chip.height == 150)
            for (row, values) in photo.chip.rows {
                let start = Int(row)! * 150 * 3
                #expect(Array(chip.pixels[start..<(start + 450)]) == values.map(UInt8.init), "\(photo.file) row \(row)")
            }
            let mean = Double(chip.pixels.reduce(0) { $0 + Int($1) }) / Double(chip.pixels.count)
            #expect(abs(mean - photo.chip.mean) < 1e-3, "\(photo.file) chip mean \(mean)")
        }
    }

    @Test func oddBoxesAndLandmarksDoNotCrash() throws {
        let image = try Self.image("camera.png")
        let model = ShippedLandmarkModel.model
        for box in [PixelRect(x: -500, y: -500, width: 40, height: 40), PixelRect(x: 250, y: 250, width: 100, height: 100),
                    PixelRect(x: 10, y: 10, width: 0, height: 0), PixelRect(x: 0, y: 0, width: 1e9, height: 1e9)] {
            #expect(model.landmarks(in: image, box: box).allSatisfy { $0.x.isFinite && $0.y.isFinite }, "\(box)")
        }
        let nan = PixelRect(x: .nan, y: 0, width: 10, height: 10)
        #expect(model.landmarks(in: image, box: nan).count == 5)
        let same = Array(repeating: FacePoint(x: 5, y: 5), count: 5)
        #expect(FaceChip.extract(from: image, landmarks: same) == nil, "coinciding landmarks")
        #expect(FaceChip.extract(from: image, landmarks: Array(same.prefix(4))) == nil, "four landmarks")
        let outside = (0..<5).map { FacePoint(x: 1e6 + Double($0 % 3) * 10, y: 1e6 + Double($0) * 7) }
        let black = try #require(FaceChip.extract(from: image, landmarks: outside, size: 8))
        #expect(black.pixels.allSatisfy { $0 == 0 })
    }

    @Test func similarityFitRecoversAKnownTransform() throws {
        let truth = SimilarityTransform(a: 0.8, b: -0.6, tx: 12, ty: -3)
        let source = FaceChip.referencePoints
        let fitted = try #require(SimilarityTransform.fitting(source, to: source.map(truth.applied)))
        for (x, y) in zip([fitted.a, fitted.b, fitted.tx, fitted.ty], [truth.a, truth.b, truth.tx, truth.ty]) {
            #expect(abs(x - y) < 1e-12)
        }
        #expect(abs(fitted.scale - 1) < 1e-12)
    }
}

/// The shape predictor committed in `Models/face-recognition`, loaded once for all tests.
enum ShippedLandmarkModel {
    static let directory = ShippedModel.directory.deletingLastPathComponent().appending(path: "face-recognition")
    static let model: FaceLandmarkModel = {
        do { return try FaceLandmarkModel(contentsOf: directory) } catch { fatalError("shipped shape predictor does not load: \(error)") }
    }()
}
