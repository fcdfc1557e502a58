import Testing
@testable import Classify

/// Two detectors' faces in one image merged (`index --faces thorough`): a face both found is kept
/// once, as the first detector drew it; what only the second found is added.
struct FaceMergingTests {
    static func face(_ x: Double, _ y: Double, _ side: Double, _ confidence: Float) -> FaceObservation {
        FaceObservation(
            pixelBox: PixelRect(x: x, y: y, width: side, height: side), pixelLandmarks: FaceLandmarks(points: (0..<5).map { FacePoint(x: x + Double($0), y: y) }), confidence: confidence,
            imageWidth: 1000, imageHeight: 800)
    }

    @Test func boxesOutlineTheSameFaceByOverlapOrContainment() {
        let box = PixelRect(x: 100, y: 100, width: 100, height: 100)
        #expect(box.intersectionOverUnion(box) == 1)
        #expect(box.intersectionOverUnion(PixelRect(x: 300, y: 100, width: 100, height: 100)) == 0)
        #expect(abs(box.intersectionOverUnion(PixelRect(x: 150, y: 100, width: 100, height: 100)) - 1.0 / 3) < 1e-12)
        #expect(box.outlinesSameFace(as: PixelRect(x: 150, y: 100, width: 100, height: 100)))
        // A tight box around the features inside a loose one: IoU 0.25, but all of it inside.
        #expect(box.outlinesSameFace(as: PixelRect(x: 125, y: 125, width: 50, height: 50)))
        // Neighbours touching at a corner, and a small face beside a large one, are two faces.
        #expect(!box.outlinesSameFace(as: PixelRect(x: 180, y: 180, width: 100, height: 100)))
        #expect(!box.outlinesSameFace(as: PixelRect(x: 190, y: 100, width: 30, height: 30)))
        #expect(!box.outlinesSameFace(as: PixelRect(x: 100, y: 100, width: 0, height: 0)))
    }

    @Test func theSecondLookAddsOnlyTheFacesTheFirstMissed() {
        let fast = FaceDetectionResult(width: 1000, height: 800, faces: [Self.face(100, 100, 100, 0.9), Self.face(500, 100, 100, 0.7)])
        let thorough = FaceDetectionResult(width: 1000, height: 800, faces: [
            Self.face(110, 105, 90, 0.999),  // the first face again, drawn a little tighter
            Self.face(700, 500, 40, 0.98),  // a small face the first look missed
            Self.face(705, 502, 38, 0.96),  // the same small face twice: kept once
            Self.face(520, 120, 60, 0.97),  // inside the second face
        ])
        let missed = thorough.faces(notAmong: fast.faces.map(\.pixelBoundingBox))
        #expect(missed.map(\.pixelBoundingBox.x) == [700])
        let merged = fast.adding(thorough)
        #expect(merged.faces.map(\.confidence) == [0.98, 0.9, 0.7])
        #expect(merged.width == 1000 && merged.height == 800)
        #expect(fast.adding(FaceDetectionResult(width: 1000, height: 800, faces: [])) == fast)
        #expect(FaceDetectionResult(width: 1000, height: 800, faces: []).adding(thorough).faces.count == 3)
    }
}
