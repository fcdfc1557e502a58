/// The camera (and lens) that took a photo, as the file names them: EXIF Make, Model and
/// LensModel (or XMP tiff:Make, tiff:Model, exifEX:LensModel), with NULs and surrounding
/// blanks removed.
///
/// Usage:
/// ```swift
/// if let camera = image.metadata.camera { print(camera.make ?? "?", camera.model ?? "?") }  // Apple iPhone 13
/// ```
public struct CameraInfo: Sendable, Hashable {
    /// The maker, e.g. "Apple", "Canon". Usage: `camera.make`
    public let make: String?
    /// The model, e.g. "iPhone 13", "Canon EOS R5". Usage: `camera.model`
    public let model: String?
    /// The lens, e.g. "iPhone 13 back dual wide camera 5.1mm f/1.6". Usage: `camera.lensModel`
    public let lensModel: String?

    /// Cleans each name (NULs removed, blanks trimmed, empty is nil); nil when none is left.
    /// Usage: `CameraInfo(make: "Apple", model: "iPhone 13", lensModel: nil)`
    public init?(make: String?, model: String?, lensModel: String?) {
        self.make = Self.cleaned(make)
        self.model = Self.cleaned(model)
        self.lensModel = Self.cleaned(lensModel)
        if self.make == nil && self.model == nil && self.lensModel == nil { return nil }
    }

    /// Names longer than this are damage, not a camera; real ones are under 64 bytes.
    static let maximumNameLength = 256

    private static func cleaned(_ name: String?) -> String? {
        guard let name else { return nil }
        let visible = String(String.UnicodeScalarView(name.unicodeScalars.filter { $0 != "\0" && $0 != "\u{FFFD}" }))
            .trimmingSpaces
        guard !visible.isEmpty, visible.utf8.count <= maximumNameLength else { return nil }
        return visible
    }

    /// Each name of `self`, else of `other`.
    func filled(from other: CameraInfo?) -> CameraInfo? {
        guard let other else { return self }
        return CameraInfo(make: make ?? other.make, model: model ?? other.model, lensModel: lensModel ?? other.lensModel)
    }
}
