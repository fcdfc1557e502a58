import Classify
import Foundation
import TagIndex

/// Finds the faces of images an index holds without them (indexed before faces were on by
/// default, or with `--no-faces`), without classifying them again: each file is read, checked
/// against its stored content hash (a file changed since is left to the next run) and given to
/// the detector; the faces are written a page at a time.
///
/// Usage:
/// ```swift
/// let added = try await FaceBackfill(detector: detector, decoder: classifier.decoder, jobs: 2).run(
///     page: { after in try index.imagesWithoutFaces(after: after, limit: 64) },
///     localPath: { $0 }, write: { try index.addFaces($0) })
/// ```
struct FaceBackfill: Sendable {
    let detector: FaceDetector
    let decoder: ImageDecoder
    let jobs: Int
    /// Images read per page (and written per transaction).
    var pageSize = 64

    /// The faces of one stored image, nil when its file cannot be read, has changed, or does not decode.
    func faces(of image: ImageWithoutFaces, at localPath: String) -> FacesFound? {
        guard let bytes = try? decoder.readFile(at: URL(fileURLWithPath: localPath)), ContentHash.hex(of: bytes) == image.contentHash,
              let result = try? detector.detect(data: bytes) else { return nil }
        return FacesFound(path: image.path, contentHash: image.contentHash, faces: result.faces.map { face in
            let box = face.pixelBoundingBox
            return IndexedFace(x: box.x, y: box.y, width: box.width, height: box.height, confidence: Double(face.confidence))
        })
    }

    /// Pages through the images without faces (`page(after)`: the next ones in path order after
    /// the given stored path), finds their faces on `jobs` tasks and writes each page; returns how
    /// many images got faces. `localPath` maps a stored path to the file to read (nil: not under
    /// this run's folders, skipped). Stops early when the surrounding task is cancelled.
    func run(
        page: (String?) async throws -> [ImageWithoutFaces], localPath: @escaping @Sendable (String) -> String?,
        write: ([FacesFound]) async throws -> Int
    ) async throws -> Int {
        var after: String?
        var added = 0
        while !Task.isCancelled {
            let images = try await page(after)
            guard let last = images.last else { break }
            after = last.path
            let found = await withTaskGroup(of: [FacesFound].self) { group in
                let lanes = max(1, min(jobs, images.count))
                for lane in 0..<lanes {
                    group.addTask {
                        stride(from: lane, to: images.count, by: lanes).compactMap { index -> FacesFound? in
                            guard !Task.isCancelled, let path = localPath(images[index].path) else { return nil }
                            return faces(of: images[index], at: path)
                        }
                    }
                }
                var all: [FacesFound] = []
                for await part in group { all += part }
                return all
            }
            added += try await write(found)
        }
        return added
    }
}
