/// The model that produced an image's labels: a name and a version.
///
/// An image indexed with another stamp than the current run's is re-classified.
///
/// ```swift
/// let stamp = ModelStamp(name: "efficientnet-lite0", version: "1.0")
/// ```
public struct ModelStamp: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The model's name, e.g. `efficientnet-lite0`.
    public var name: String
    /// The model's version; any change re-classifies the images it labelled.
    public var version: String

    /// Creates a stamp.
    ///
    /// ```swift
    /// let stamp = ModelStamp(name: "lite0", version: "2")
    /// ```
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    /// `name@version`, e.g. `lite0@2`.
    ///
    /// ```swift
    /// print(stamp.description)
    /// ```
    public var description: String { "\(name)@\(version)" }
}
