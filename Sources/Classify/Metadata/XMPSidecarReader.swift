import Foundation

/// Reads the XMP sidecar beside a photo: `photo.jpg.xmp` (darktable's naming, unambiguous)
/// first, then `photo.xmp` (Lightroom's and digiKam's), each also with `.XMP`.
///
/// A sidecar is where photo managers write a corrected date or a placed location, so when
/// both know a fact the sidecar's should win over the file's own:
/// ```swift
/// let image = try ImageDecoder().decode(contentsOf: url)
/// let metadata = XMPSidecarReader.metadata(forImageAt: url)?.filling(from: image.metadata) ?? image.metadata
/// ```
public enum XMPSidecarReader {
    /// Sidecars larger than this are not read (real ones are a few KB).
    /// Usage: `XMPSidecarReader.maximumByteCount`
    public static let maximumByteCount = 4 * 1024 * 1024

    /// The sidecar names looked for beside `imageURL`, in order.
    /// Usage: `XMPSidecarReader.candidateURLs(for: url)  // photo.jpg.xmp, photo.jpg.XMP, photo.xmp, photo.XMP`
    public static func candidateURLs(for imageURL: URL) -> [URL] {
        let folder = imageURL.deletingLastPathComponent()
        let name = imageURL.lastPathComponent
        let stem = imageURL.pathExtension.isEmpty ? name : imageURL.deletingPathExtension().lastPathComponent
        let names = imageURL.pathExtension.isEmpty
            ? [name + ".xmp", name + ".XMP"] : [name + ".xmp", name + ".XMP", stem + ".xmp", stem + ".XMP"]
        return names.map { folder.appendingPathComponent($0, isDirectory: false) }
    }

    /// The metadata of the first sidecar found beside `imageURL` that is a regular, readable file
    /// of at most ``maximumByteCount`` bytes; nil when there is none.
    /// Usage: `let fromSidecar = XMPSidecarReader.metadata(forImageAt: url)`
    public static func metadata(forImageAt imageURL: URL) -> PhotoMetadata? {
        for candidate in candidateURLs(for: imageURL) {
            guard let values = try? candidate.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]),
                values.isRegularFile == true, let size = values.fileSize, size <= maximumByteCount,
                let data = try? Data(contentsOf: candidate)
            else { continue }
            return metadata(inPacket: data)
        }
        return nil
    }

    /// The metadata of an XMP packet's text (a sidecar's contents).
    /// Usage: `let metadata = XMPSidecarReader.metadata(inPacket: Data(xml.utf8))`
    public static func metadata(inPacket packet: Data) -> PhotoMetadata {
        XMPReader.metadata(inPacket: [UInt8](packet))
    }
}
