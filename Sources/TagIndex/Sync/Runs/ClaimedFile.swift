/// A file a worker of a ``IndexWriterRun`` claimed: its facts on this machine (a local path) and
/// in the index.
///
/// Usage: `for claim in try await worker.claim(limit: 4) { print(claim.facts.path, claim.libraryPath) }`
public struct ClaimedFile: Sendable, Hashable {
    /// The file as this machine sees it (local path, the size and time the walk found).
    public var facts: FileFacts
    /// Its path in the index.
    public var libraryPath: String
    /// How many times it has been claimed, this claim included.
    public var attempts: Int

    /// Usage: `ClaimedFile(facts: facts, libraryPath: "photos/a.jpg", attempts: 1)`
    public init(facts: FileFacts, libraryPath: String, attempts: Int) {
        self.facts = facts
        self.libraryPath = libraryPath
        self.attempts = attempts
    }
}
