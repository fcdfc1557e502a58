import Foundation
import Testing
@testable import Classify

/// The converted ResNet on our runtime against dlib's descriptors (Scripts/make-face-recognition-golden):
/// the chip cut in Swift from dlib's landmarks, then the network, within 1e-3 (L2) of dlib.
struct FaceDescriptorGoldenTests {
    struct Golden: Decodable {
        struct Photo: Decodable { var file: String; var box: [Double]; var landmarks: [[Double]]; var descriptor: [Float] }
        var photos: [Photo]
    }

    static let golden: Golden = {
        let url = Bundle.module.url(forResource: "golden-dlib", withExtension: "json", subdirectory: "Fixtures/face-recognition")!
        return try! JSONDecoder().decode(Golden.self, from: Data(contentsOf: url))
    }()

    static let model: FaceDescriptorModel = {
        do { return try FaceDescriptorModel(contentsOf: ShippedLandmarkModel.directory) } catch { fatalError("shipped recognition network does not load: \(error)") }
    }()

    /// On every kernel path this CPU has, with one and two threads (the 3x3 layers run on im2col
    /// and the packed GEMM, the stem on the direct kernel).
    @Test(arguments: KernelPaths.withThreads)
    func descriptorsMatchDlib(path: (kernels: KernelPath, threads: Int)) throws {
        for photo in Self.golden.photos {
            let image = try FaceLandmarkGoldenTests.image(photo.file)
            let chip = try #require(FaceChip.extract(from: image, landmarks: photo.landmarks.map { FacePoint(x: $0[0], y: $0[1]) }))
            var descriptor: [Float]?
            try KernelPaths.with(path.kernels, threads: path.threads) { descriptor = Self.model.descriptor(ofChip: chip) }
            let distance = zip(try #require(descriptor), photo.descriptor).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
            #expect(distance < 1e-3, "\(photo.file): L2 \(distance) from dlib")
        }
    }

    /// The residual blocks whose shortcut has the block's shape add it in the second
    /// convolution's store; the four that widen or shrink keep dlib's padded add.
    @Test func sameShapeShortcutsAreAddedInTheConvolutionsStore() {
        let operations = Self.model.graph.operations
        #expect(operations.filter { $0 is PaddedAddOperation }.count == 4)
        #expect(!operations.contains { $0 is AddOperation })
        #expect(operations.compactMap { $0 as? Conv2DOperation }.filter { $0.residual != nil }.count == 10)
    }

    @Test func twoDifferentPeopleAreFartherThanTheThreshold() throws {
        let descriptors = try Self.golden.photos.map { photo -> [Float] in
            let image = try FaceLandmarkGoldenTests.image(photo.file)
            let chip = try #require(FaceChip.extract(from: image, landmarks: photo.landmarks.map { FacePoint(x: $0[0], y: $0[1]) }))
            return try #require(Self.model.descriptor(ofChip: chip))
        }
        let distance = zip(descriptors[0], descriptors[1]).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) }.squareRoot()
        #expect(distance > FaceDescriptorModel.samePersonDistance, "the astronaut and the cameraman: \(distance)")
    }

    @Test func aChipOfAnotherSizeHasNoDescriptor() throws {
        let small = DecodedImage(width: 2, height: 2, pixels: Array(repeating: 9, count: 12), format: .png)
        #expect(Self.model.descriptor(ofChip: small) == nil)
    }
}
