/// The library's version.
///
/// ```swift
/// print(ClassifyVersion.current)   // "0.1.0"
/// ```
public enum ClassifyVersion {
    /// Semantic version of this package.
    public static let current = "0.1.0"
}
