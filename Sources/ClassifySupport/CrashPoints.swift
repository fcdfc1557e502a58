import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Named moments of an index run at which a test can make the process die with SIGKILL (or
/// interrupt or stop itself), so the reliability tests land their kills, Ctrl-Cs and pauses at
/// chosen points of the run whatever the speed of the machine, instead of at moments drawn on a
/// clock.
///
/// Disarmed unless a program arms it: the libraries only call ``reach(_:)``, which costs one
/// read of a static when disarmed. `classify-tool` arms it from the environment variable
/// `CLASSIFY_CRASH_AT` (see ``armFromEnvironment()``); nothing else does.
///
/// ```swift
/// CrashPoints.reach(.entryWritten)   // in a write transaction, after one row
/// ```
package enum CrashPoints {
    /// Where a run can be made to die.
    package enum Point: String, CaseIterable, Sendable {
        /// Inside a schema migration's transaction, after its tables were created (before commit).
        case schema
        /// Inside the taxonomy transaction, after another 100 labels were written (before commit).
        case taxonomy
        /// Inside a batch transaction, after one more entry was stored (before its commit).
        case entryWritten = "entry"
        /// Right after a batch transaction committed, before the next one starts.
        case batchCommitted = "commit"
        /// In an export, after a sidecar's new bytes were written to its temporary file and flushed,
        /// before the rename that puts them in place.
        case sidecarWritten = "sidecar"
        /// Inside the transaction that stores a grouping of people, after its rows were written
        /// (before commit).
        case grouping
    }

    /// What the process does to itself at the armed pass.
    package enum Action: String, CaseIterable, Sendable {
        /// SIGKILL, as `kill -9` or the OOM killer would: no handler, no flush, no atexit.
        case kill = "KILL"
        /// SIGINT, as Ctrl-C would: the tool's own handler runs.
        case interrupt = "INT"
        /// SIGSTOP: the process stands still, holding its locks and open transaction, until
        /// someone sends SIGCONT.
        case stop = "STOP"

        var signal: Int32 {
            switch self {
            case .kill: SIGKILL
            case .interrupt: SIGINT
            case .stop: SIGSTOP
            }
        }
    }

    /// The armed point, after how many passes it fires, and what it does then.
    private struct Plan {
        var point: Point
        var pass: Int
        var action: Action
    }

    /// Written once, before any other thread runs (`armFromEnvironment` is called at start-up).
    nonisolated(unsafe) private static var plan: Plan?
    private static let passes = Locked([Point: Int]())

    /// The environment variable `classify-tool` reads: `POINT:N` makes the process kill itself
    /// at the N-th pass (1-based) through `POINT`, one of `schema`, `taxonomy`, `entry`,
    /// `commit`, `sidecar`; `POINT:N:INT` interrupts it there instead, `POINT:N:STOP` stops it.
    package static let environmentVariable = "CLASSIFY_CRASH_AT"

    /// Arms the crash point named in `CLASSIFY_CRASH_AT`; call it once at start-up, before other
    /// threads exist. Returns an error message when the variable is set but malformed.
    ///
    /// ```swift
    /// if let problem = CrashPoints.armFromEnvironment() { print(problem) }
    /// ```
    package static func armFromEnvironment() -> String? {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable], !value.isEmpty else { return nil }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, let point = Point(rawValue: parts[0]),
            let pass = Int(parts[1]), pass >= 1,
            let action = parts.count == 3 ? Action(rawValue: parts[2]) : .kill
        else {
            let points = Point.allCases.map(\.rawValue).joined(separator: ", ")
            let actions = Action.allCases.map(\.rawValue).joined(separator: ", ")
            return "\(environmentVariable)=\(value) is not POINT:N[:SIGNAL] with POINT one of \(points), N >= 1 and SIGNAL one of \(actions)"
        }
        plan = Plan(point: point, pass: pass, action: action)
        return nil
    }

    /// Counts a pass through `point` and kills the process with SIGKILL when it is the armed one.
    ///
    /// ```swift
    /// CrashPoints.reach(.batchCommitted)
    /// ```
    @inline(__always)
    package static func reach(_ point: Point) {
        guard let plan, plan.point == point else { return }
        let count = passes.withLock { counts in
            counts[point, default: 0] += 1
            return counts[point]!
        }
        guard count == plan.pass else { return }
        switch plan.action {
        case .kill, .stop:
            // To this thread: it dies or stops before it returns from `raise`. Sent to the
            // process, SIGSTOP is taken by whichever thread the kernel picks, and this one could
            // go on (commit the batch) until that thread has run.
            raise(plan.action.signal)
        case .interrupt:
            // To the process, as a terminal sends Ctrl-C; the tool's handler takes it.
            kill(getpid(), SIGINT)
        }
    }
}
