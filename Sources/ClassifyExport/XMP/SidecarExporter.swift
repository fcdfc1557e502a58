import Foundation
import TagIndex

/// What an export did with one image's sidecar.
///
/// ```swift
/// if case .failed(let error) = result.outcome { print(error) }
/// ```
public enum SidecarOutcome: Sendable, Hashable {
    /// A new sidecar was written (or would be, in a dry run).
    case created
    /// An existing sidecar got new keywords (or would, in a dry run).
    case updated
    /// The sidecar already held exactly these keywords; it was not touched.
    case unchanged
    /// Nothing to write: the file's classification failed, or no label passes the filter and
    /// there is no sidecar to update.
    case skipped(reason: String)
    /// The sidecar could not be read, parsed or written; it is untouched.
    case failed(SidecarError)
}

/// One row of an XMP export.
///
/// ```swift
/// print(result.imagePath, result.sidecarPath, result.outcome)
/// ```
public struct SidecarResult: Sendable, Hashable {
    /// The image.
    public var imagePath: String
    /// Its sidecar.
    public var sidecarPath: String
    /// What happened.
    public var outcome: SidecarOutcome
    /// The keywords written (ours; the file's own are kept beside them).
    public var keywords: XMPKeywords
}

/// Writes the kept labels of export records into XMP sidecars, one record at a time.
///
/// Each sidecar is read and parsed first; our keywords from the previous export are replaced, every
/// other keyword and property stays, and the new bytes replace the file atomically
/// (``AtomicFile``). A sidecar that cannot be parsed is reported and left untouched. Two images
/// of one export that map to the same sidecar (`photo.jpg` and `photo.png` with `photo.xmp`):
/// the second one fails rather than overwrite the first one's keywords (records must come in
/// path order, as ``SQLiteIndex/exportRecords(matching:filter:_:)`` gives them).
///
/// ```swift
/// let exporter = SidecarExporter(naming: .replacingExtension, dryRun: false)
/// try index.exportRecords(filter: .highPrecision) { record in print(exporter.export(record)) }
/// ```
public final class SidecarExporter {
    /// How sidecars are named.
    public let naming: SidecarNaming
    /// Whether to only report what would be written.
    public let dryRun: Bool
    /// Sidecar path -> image path, for the images of the current name group (see `claim`).
    private var claimed: [String: String] = [:]
    private var group = ""

    /// Creates an exporter.
    ///
    /// ```swift
    /// let exporter = SidecarExporter(naming: .appendingExtension, dryRun: true)
    /// ```
    public init(naming: SidecarNaming, dryRun: Bool) {
        self.naming = naming
        self.dryRun = dryRun
    }

    /// Writes (or, in a dry run, plans) the sidecar of one record.
    ///
    /// ```swift
    /// let result = exporter.export(record)
    /// ```
    public func export(_ record: ExportRecord) -> SidecarResult {
        let sidecar = naming.sidecarPath(for: record.path)
        let keywords = XMPKeywords(record: record)
        func result(_ outcome: SidecarOutcome) -> SidecarResult {
            SidecarResult(imagePath: record.path, sidecarPath: sidecar, outcome: outcome, keywords: keywords)
        }
        if let stage = record.failureStage {
            return result(.skipped(reason: "not classified (\(stage) failed)"))
        }
        // A shared index stores a named library's files as NAME:/relative; which folder of this
        // machine holds them is not known here, and the path would name a folder "NAME:" here.
        guard record.path.hasPrefix("/") else {
            return result(.skipped(reason: "a library path (NAME:/...), not a file of this machine: no sidecar written"))
        }
        if let other = claim(sidecar, for: record.path) { return result(.failed(.shared(path: sidecar, with: other))) }
        let existing: Data?
        do {
            existing = try AtomicFile.read(sidecar)
            // No keyword and no sidecar: an empty packet beside the photo would only be clutter.
            if existing == nil && keywords.subjects.isEmpty && keywords.hierarchicalSubjects.isEmpty {
                return result(.skipped(reason: "no label passes the filter"))
            }
            let merged = try XMPSidecar.merging(keywords, regions: XMPFaceRegions(record: record), into: existing, path: sidecar)
            if merged == existing { return result(.unchanged) }
            if !dryRun { try AtomicFile.write(merged, to: sidecar) }
        } catch {
            return result(.failed(error))
        }
        return result(existing == nil ? .created : .updated)
    }

    /// Records that `imagePath` writes `sidecar`; returns the image that already did in this export.
    ///
    /// Only `photo.xmp` names can collide, and only between paths that share `folder/photo.`; in
    /// path order (how ``SQLiteIndex/exportRecords(matching:filter:_:)`` delivers them) those are
    /// consecutive, so the claims of one such group are kept at a time: memory stays small
    /// however large the export.
    private func claim(_ sidecar: String, for imagePath: String) -> String? {
        guard naming == .replacingExtension else { return nil }
        if !imagePath.hasPrefix(group) {
            claimed.removeAll(keepingCapacity: true)
            let url = URL(fileURLWithPath: imagePath)
            group = (url.pathExtension.isEmpty ? imagePath : url.deletingPathExtension().path) + "."
        }
        if let other = claimed[sidecar] { return other }
        claimed[sidecar] = imagePath
        return nil
    }
}
