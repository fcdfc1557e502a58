/// How an ``IndexWriterRun`` treats time: leases of claimed files, patience with a server that
/// went away, how often a file may be claimed by indexers that then died, and how a backend that
/// batches writes itself (a SQLite file) groups them into transactions.
///
/// Usage: `var settings = RunSettings(); settings.lease = .seconds(30)`
public struct RunSettings: Sendable {
    /// How long a claim holds without being renewed (workers renew every third of it).
    public var lease: Duration = .seconds(60)
    /// How long a worker keeps reconnecting to a server that went away before it gives up.
    public var patience: Duration = .seconds(120)
    /// Claims of one file by indexers that stopped (killed or crashed) before it is written as
    /// failed instead of tried again.
    public var maximumAttempts = 3
    /// Files a SQLite run commits in one transaction (at most)...
    public var batchSize = 64
    /// ...or when this much time has passed since its last commit.
    public var batchInterval: Duration = .seconds(1)

    /// Usage: `let settings = RunSettings()`
    public init() {}
}
