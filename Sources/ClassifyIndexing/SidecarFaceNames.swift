import Classify
import ClassifyPeople
import TagIndex

/// A name another photo tool gave a face in the photo's XMP (an MWG region, as digiKam and
/// Lightroom write them), matched to a face the index stored: `index` records it as an imported
/// correction (it loses to a person's own word), so the names people already gave elsewhere
/// name the people here.
///
/// ```swift
/// try await index.importFaceNames(report.importedFaceNames)
/// ```
public struct ImportedFaceName: Sendable, Hashable {
    /// The photo's content hash. Usage: `name.contentHash`
    public var contentHash: String
    /// The face's number in the stored order, from 0. Usage: `name.faceNumber`
    public var faceNumber: Int
    /// Usage: `name.name`
    public var name: String

    /// Usage: `ImportedFaceName(contentHash: hash, faceNumber: 0, name: "Anna")`
    public init(contentHash: String, faceNumber: Int, name: String) {
        self.contentHash = contentHash
        self.faceNumber = faceNumber
        self.name = name
    }
}

/// Pairs named MWG regions with stored faces by overlap.
enum SidecarFaceNames {
    /// A region names a face when their boxes overlap by at least this much (intersection over
    /// union): another tool's face box is drawn differently from BlazeFace's, but over the same face.
    static let minimumOverlap = 0.3

    /// The names of `regions` given to `faces` (in their stored order), each region and face
    /// once, best overlaps first; `width` x `height` is the upright image.
    static func match(_ regions: [FaceRegion], faces: [IndexedFace], width: Int, height: Int, contentHash: String) -> [ImportedFaceName] {
        var pairs: [(overlap: Double, region: Int, face: Int)] = []
        for (regionIndex, region) in regions.enumerated() where region.name != nil {
            let box = region.pixelRect(imageWidth: width, imageHeight: height)
            for (faceIndex, face) in faces.enumerated() {
                let overlap = box.intersectionOverUnion(face.pixelRect)
                if overlap >= minimumOverlap { pairs.append((overlap, regionIndex, faceIndex)) }
            }
        }
        pairs.sort { ($0.overlap, $1.region, $1.face) > ($1.overlap, $0.region, $0.face) }
        var usedRegions: Set<Int> = [], usedFaces: Set<Int> = []
        var names: [ImportedFaceName] = []
        for pair in pairs where !usedRegions.contains(pair.region) && !usedFaces.contains(pair.face) {
            usedRegions.insert(pair.region)
            usedFaces.insert(pair.face)
            names.append(ImportedFaceName(contentHash: contentHash, faceNumber: pair.face, name: regions[pair.region].name!))
        }
        return names.sorted { $0.faceNumber < $1.faceNumber }
    }
}

extension PeopleStore {
    /// Records names read from photos' XMP as imported facts (priority below a person's own),
    /// skipping those the index already holds for the same face, whatever their source.
    ///
    /// ```swift
    /// let recorded = try await index.importFaceNames(report.importedFaceNames)
    /// ```
    @discardableResult
    public func importFaceNames(_ names: [ImportedFaceName]) async throws -> Int {
        guard !names.isEmpty else { return 0 }
        var known: Set<String> = []
        for fact in try await peopleCorrections() {
            if case .name(let face, let name) = fact.kind { known.insert("\(face)\u{1F}\(name)") }
        }
        let new = names.filter { known.insert("\($0.contentHash)#\($0.faceNumber)\u{1F}\($0.name)").inserted }
        guard !new.isEmpty else { return 0 }
        try await recordPeopleCorrections(
            new.map { .name(FaceKey(contentHash: $0.contentHash, faceNumber: $0.faceNumber), $0.name) }, source: .imported("xmp"))
        return new.count
    }
}
