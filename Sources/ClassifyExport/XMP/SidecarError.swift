/// Why a sidecar was not written. The file on disk is untouched in every case.
///
/// ```swift
/// catch let error as SidecarError { print(error.description) }
/// ```
public enum SidecarError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The file is not well-formed XML, or not an XMP packet; it is left as it is.
    case notXMP(path: String, reason: String)
    /// Writing the new file (or renaming it into place) failed.
    case notWritten(path: String, reason: String)
    /// Two images of one export would share this sidecar (`photo.jpg` and `photo.png` both map to
    /// `photo.xmp`).
    case shared(path: String, with: String)

    /// A sentence naming the file and what to do.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot read the sidecar (\(reason)); left untouched"
        case .notXMP(let path, let reason): "\(path): not a readable XMP sidecar (\(reason)); left untouched"
        case .notWritten(let path, let reason): "\(path): could not write the sidecar (\(reason)); the old file is unchanged"
        case .shared(let path, let other):
            "\(path): already written for \(other) in this export; use --sidecar-name photo.jpg.xmp to give each image its own"
        }
    }
}
