/// Why the places file could not be used; each case names the file and what is wrong.
///
/// Usage: `catch let error as PlacesFileError { print(error.description) }`
public enum PlacesFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No places file in any of the searched locations.
    /// Usage: `if case .notFound(let searched) = error { print(searched) }`
    case notFound(searched: [String])
    /// The file could not be read. Usage: `if case .unreadable(let path, _) = error { print(path) }`
    case unreadable(path: String, reason: String)
    /// The file is not a places file of a version this build reads, or a section is damaged.
    /// Usage: `if case .invalid(_, let reason) = error { print(reason) }`
    case invalid(path: String, reason: String)

    /// A sentence a user can act on. Usage: `print(error.description)`
    public var description: String {
        switch self {
        case .notFound(let searched):
            return "no places file (places.bin) found; looked in \(searched.joined(separator: ", ")). "
                + "Regenerate it with Scripts/convert-places or set CLASSIFY_PLACES_FILE."
        case .unreadable(let path, let reason): return "cannot read the places file \(path): \(reason)"
        case .invalid(let path, let reason):
            return "the places file \(path) is not usable: \(reason); regenerate it with Scripts/convert-places"
        }
    }
}
