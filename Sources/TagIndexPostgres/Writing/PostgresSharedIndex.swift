import TagIndex

/// A PostgreSQL database as any number of indexers fill it at once (``PostgresIndexRun``): the
/// server's ``IndexWriter``.
///
/// Usage:
/// ```swift
/// let shared = PostgresSharedIndex(descriptor)
/// let run = try await shared.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: RunSettings())
/// ```
public struct PostgresSharedIndex: IndexWriter {
    /// The database.
    public let descriptor: PostgresDescriptor

    /// Usage: `let shared = PostgresSharedIndex(try PostgresDescriptor(parsing: url))`
    public init(_ descriptor: PostgresDescriptor) {
        self.descriptor = descriptor
    }

    /// A batch per claim: each costs a round trip to the server.
    ///
    /// Usage: `shared.preferredClaimSize   // 32`
    public var preferredClaimSize: Int { 32 }

    /// How many images carry each label (empty for a database never indexed into), on a
    /// connection of its own.
    ///
    /// Usage: `let counts = try await shared.labelImageCounts()`
    public func labelImageCounts() async throws -> [String: Int] {
        guard try await installedModel() != nil else { return [:] }
        let session = try await PostgresSession.connect(descriptor)
        defer { Task { await session.close() } }
        let rows = try await session.all("SELECT identifier, image_count FROM labels WHERE image_count > 0") {
            try $0.decode((String, Int64).self)
        }
        return Dictionary(rows.map { ($0.0, Int($0.1)) }, uniquingKeysWith: max)
    }

    /// See ``PostgresIndexRun/installedModel(_:)``.
    ///
    /// Usage: `let stamp = try await shared.installedModel()`
    public func installedModel() async throws -> String? {
        try await PostgresIndexRun.installedModel(descriptor)
    }

    /// See ``PostgresIndexRun/begin(_:roots:labels:model:vocabulary:settings:)``.
    ///
    /// Usage: `let run = try await shared.beginRun(roots: roots, labels: labels, model: stamp, vocabulary: words, settings: RunSettings())`
    public func beginRun(
        roots: [LibraryRoot], labels: [LabelDefinition], model: ModelStamp, vocabulary: [VocabularyWord], settings: RunSettings
    ) async throws -> any IndexWriterRun {
        try await PostgresIndexRun.begin(descriptor, roots: roots, labels: labels, model: model, vocabulary: vocabulary, settings: settings)
    }
}
