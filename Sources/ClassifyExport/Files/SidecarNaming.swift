import Foundation

/// How a sidecar is named after its image.
///
/// ```swift
/// SidecarNaming.replacingExtension.sidecarPath(for: "/photos/IMG_1.jpg")   // /photos/IMG_1.xmp
/// SidecarNaming.appendingExtension.sidecarPath(for: "/photos/IMG_1.jpg")   // /photos/IMG_1.jpg.xmp
/// ```
public enum SidecarNaming: String, Sendable, Hashable, CaseIterable {
    /// `photo.xmp`: the name Lightroom reads and writes, and digiKam's "compatible with commercial
    /// programs" setting.
    case replacingExtension = "photo.xmp"
    /// `photo.jpg.xmp`: darktable's name and digiKam's default; never shared by two images.
    case appendingExtension = "photo.jpg.xmp"

    /// The sidecar's path for the image at `imagePath`.
    ///
    /// ```swift
    /// let sidecar = SidecarNaming.replacingExtension.sidecarPath(for: path)
    /// ```
    public func sidecarPath(for imagePath: String) -> String {
        switch self {
        case .appendingExtension:
            return imagePath + ".xmp"
        case .replacingExtension:
            let url = URL(fileURLWithPath: imagePath)
            return url.pathExtension.isEmpty ? imagePath + ".xmp" : url.deletingPathExtension().path + ".xmp"
        }
    }
}
