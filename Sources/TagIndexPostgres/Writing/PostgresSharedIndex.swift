import TagIndex

/// A PostgreSQL database as any number of indexers fill it at once (``PostgresIndexRun``).
///
/// Usage:
/// ```swift
/// let shared = PostgresSharedIndex(descriptor)
/// let run = try await shared.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: SharedRunSettings())
/// ```
public struct PostgresSharedIndex: SharedIndex {
    /// The database.
    public let descriptor: PostgresDescriptor

    /// Usage: `let shared = PostgresSharedIndex(try PostgresDescriptor(parsing: url))`
    public init(_ descriptor: PostgresDescriptor) {
        self.descriptor = descriptor
    }

    /// See ``PostgresIndexRun/installedModel(_:)``.
    ///
    /// Usage: `let stamp = try await shared.installedModel()`
    public func installedModel() async throws -> String? {
        try await PostgresIndexRun.installedModel(descriptor)
    }

    /// See ``PostgresIndexRun/begin(_:roots:labels:model:vocabulary:settings:)``.
    ///
    /// Usage: `let run = try await shared.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: SharedRunSettings())`
    public func beginRun(
        roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], settings: SharedRunSettings
    ) async throws -> any SharedIndexRun {
        try await PostgresIndexRun.begin(descriptor, roots: roots, labels: labels, model: model, vocabulary: vocabulary, settings: settings)
    }
}
