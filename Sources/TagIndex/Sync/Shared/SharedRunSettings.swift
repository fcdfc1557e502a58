/// How a ``SharedIndexRun`` treats time: leases of claimed files, patience with a server that
/// went away, and how often a file may be claimed by indexers that then died.
///
/// Usage: `var settings = SharedRunSettings(); settings.lease = .seconds(30)`
public struct SharedRunSettings: Sendable {
    /// How long a claim holds without being renewed (workers renew every third of it).
    public var lease: Duration = .seconds(60)
    /// How long a worker keeps reconnecting to a server that went away before it gives up.
    public var patience: Duration = .seconds(120)
    /// Claims of one file by indexers that stopped (killed or crashed) before it is written as
    /// failed instead of tried again.
    public var maximumAttempts = 3

    /// Usage: `let settings = SharedRunSettings()`
    public init() {}
}
