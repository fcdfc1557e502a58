import Classify
import ClassifySupport
import Foundation
import TagIndex

/// Adds to indexed images what an earlier run did not store (faces, metadata) without classifying
/// them again: each file is read, checked against its stored content hash (a file changed since
/// is left to the next run) and given to `find`; what it finds is written a page at a time.
///
/// Usage:
/// ```swift
/// let added = try await Backfill.faces(detector: detector, decoder: classifier.decoder, jobs: 2).run(
///     page: { after in try index.imagesWithoutFaces(after: after, limit: 64) },
///     localPath: { $0 }, write: { try index.addFaces($0) })
/// ```
struct Backfill<Item: StoredContent, Found: Sendable>: Sendable {
    /// What one stored image holds, from its bytes; nil when they do not decode.
    let find: @Sendable (Item, _ bytes: [UInt8], _ localPath: String) -> Found?
    let decoder: ImageDecoder
    let jobs: Int
    /// Images read per page (and written per transaction).
    var pageSize = 64

    /// Pages through the images (`page(after)`: the next ones in path order after the given
    /// stored path), reads them on `jobs` tasks and writes each page; returns how many images
    /// `write` says it changed. `localPath` maps a stored path to the file to read (nil: not under
    /// this run's folders, skipped). Stops early when the surrounding task is cancelled.
    func run(
        page: (String?) async throws -> [Item], localPath: @escaping @Sendable (String) -> String?,
        write: ([Found]) async throws -> Int
    ) async throws -> Int {
        var after: String?
        var added = 0
        while !Task.isCancelled {
            let images = try await page(after)
            guard let last = images.last else { break }
            after = last.path
            let found = await withTaskGroup(of: [Found].self) { group in
                let lanes = max(1, min(jobs, images.count))
                for lane in 0..<lanes {
                    group.addTask {
                        stride(from: lane, to: images.count, by: lanes).compactMap { index -> Found? in
                            guard !Task.isCancelled, let path = localPath(images[index].path) else { return nil }
                            return read(images[index], at: path)
                        }
                    }
                }
                var all: [Found] = []
                for await part in group { all += part }
                return all
            }
            added += try await write(found)
        }
        return added
    }

    /// What `find` makes of one stored image, nil when its file cannot be read or has changed.
    private func read(_ image: Item, at localPath: String) -> Found? {
        guard let bytes = try? decoder.readFile(at: URL(fileURLWithPath: localPath)), ContentHash.hex(of: bytes) == image.contentHash
        else { return nil }
        return find(image, bytes, localPath)
    }
}

extension Backfill where Item == StoredImageFile, Found == FacesFound {
    /// Finds the faces of images indexed without them (before faces were on by default, or with
    /// `--no-faces`), with `thorough` too when given (its faces that `detector` did not find are
    /// added), and describes them when given a recognizer.
    ///
    /// Usage: `Backfill.faces(detector: detector, recognizer: recognizer, decoder: classifier.decoder, jobs: 2)`
    static func faces(
        detector: FaceDetector, thorough: FaceDetector? = nil, recognizer: OnDemandRecognizer?, decoder: ImageDecoder, jobs: Int,
        names: Locked<[ImportedFaceName]>? = nil
    ) -> Backfill {
        Backfill(find: { image, bytes, localPath in
            guard var result = try? detector.detect(data: bytes) else { return nil }
            if let thorough {
                guard let more = try? thorough.detect(data: bytes) else { return nil }
                result = result.adding(more)
            }
            let descriptors = result.faces.isEmpty ? nil : recognizer?.recognizer?.descriptors(for: result, decoding: bytes, with: decoder)
            let faces = IndexedFace.faces(of: result, descriptors: descriptors)
            if let names {
                importNames(for: IndexedFace.storageOrder(faces), of: image, width: result.width, height: result.height, localPath: localPath, into: names)
            }
            return FacesFound(path: image.path, contentHash: image.contentHash, faces: faces, thorough: thorough != nil)
        }, decoder: decoder, jobs: jobs)
    }
}

extension Backfill where Item == StoredFaces, Found == FacesFound {
    /// Looks again with `detector` (MTCNN, `index --faces thorough`) at images whose faces the
    /// fast detector alone looked for: the faces it finds that are not among the stored ones
    /// follow them (the stored faces keep their numbers), described when given a recognizer.
    ///
    /// Usage: `Backfill.thorough(detector: mtcnn, recognizer: recognizer, decoder: classifier.decoder, jobs: 2)`
    static func thorough(
        detector: FaceDetector, recognizer: OnDemandRecognizer?, decoder: ImageDecoder, jobs: Int, names: Locked<[ImportedFaceName]>? = nil
    ) -> Backfill {
        Backfill(find: { image, bytes, localPath in
            guard let result = try? detector.detect(data: bytes) else { return nil }
            let missed = FaceDetectionResult(width: result.width, height: result.height, faces: result.faces(notAmong: image.faces.map(\.pixelRect)))
            let descriptors = missed.faces.isEmpty ? nil : recognizer?.recognizer?.descriptors(for: missed, decoding: bytes, with: decoder)
            let added = IndexedFace.faces(of: missed, descriptors: descriptors)
            if let names, !added.isEmpty {
                // The faces as they will be stored: the stored ones, then the added ones.
                importNames(for: image.faces + IndexedFace.storageOrder(added), of: image, width: result.width, height: result.height, localPath: localPath, into: names)
            }
            return FacesFound(path: image.path, contentHash: image.contentHash, faces: added, thorough: true, following: image.faces)
        }, decoder: decoder, jobs: jobs)
    }
}

extension Backfill where Item == StoredFaces, Found == FacesFound {
    /// Describes the stored faces of images indexed before the index recognised people, from
    /// their stored boxes (no detection, no classification).
    ///
    /// Usage: `Backfill.descriptors(recognizer: recognizer, decoder: classifier.decoder, jobs: 2)`
    static func descriptors(recognizer: OnDemandRecognizer, decoder: ImageDecoder, jobs: Int) -> Backfill {
        Backfill(find: { image, bytes, _ in
            guard let recognizer = recognizer.recognizer else { return nil }
            let descriptors = recognizer.descriptors(for: image.faces.map(\.pixelRect), width: image.width, height: image.height, decoding: bytes, with: decoder)
            guard descriptors.count == image.faces.count else { return nil }
            var faces = image.faces
            for index in faces.indices { faces[index].descriptor = descriptors[index] ?? [] }
            return FacesFound(path: image.path, contentHash: image.contentHash, faces: faces)
        }, decoder: decoder, jobs: jobs)
    }
}

extension Backfill where Item == StoredImageFile, Found == MetadataFound {
    /// Reads the date taken, position and camera of images indexed before the index stored them.
    /// The decode is the smallest the format allows (its metadata is the same at any size).
    ///
    /// Usage: `Backfill.metadata(reader: .shared, decoder: classifier.decoder, jobs: 2)`
    static func metadata(reader: PhotoMetadataReader, decoder: ImageDecoder, jobs: Int) -> Backfill {
        Backfill(find: { image, bytes, localPath in
            guard let decoded = try? decoder.decode(bytes, minimumShortSide: 1) else { return nil }
            return MetadataFound(path: image.path, contentHash: image.contentHash, metadata: reader.indexed(decoded.metadata, path: localPath))
        }, decoder: decoder, jobs: jobs)
    }
}

/// Names another tool gave the faces of a photo in its XMP sidecar, matched to `faces` (in stored
/// order) as a run matches them, added to `names` (faces that already have a name keep it: see
/// `importFaceNames`).
private func importNames(
    for faces: [IndexedFace], of image: some StoredContent, width: Int, height: Int, localPath: String, into names: Locked<[ImportedFaceName]>
) {
    guard !faces.isEmpty, let regions = XMPSidecarReader.metadata(forImageAt: URL(fileURLWithPath: localPath))?.faceRegions,
        regions.contains(where: { $0.name != nil })
    else { return }
    let found = SidecarFaceNames.match(regions, faces: faces, width: width, height: height, contentHash: image.contentHash)
    names.withLock { $0.append(contentsOf: found) }
}
