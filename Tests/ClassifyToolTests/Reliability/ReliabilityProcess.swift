import ClassifyTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Parent of the reliability suites: they run the tool in child processes, some for a minute,
/// so they run one at a time. Their time limits (20 minutes) only catch a hang: the clock runs
/// from a test's start, including time spent waiting behind other tests on a busy 2-core machine.
@Suite(.serialized) enum Reliability {}

/// Runs programs, above all the built `classify-tool`, in child processes for the reliability
/// tests, with their output in files (no pipe can fill up) and a deadline after which the child
/// is killed and the run reported as hung.
///
/// Usage: `let outcome = try ReliabilityProcess.run(["search", "dog", "--db", db.path], scratch: dir)`
enum ReliabilityProcess {
    /// How a child ended and what it printed.
    struct Outcome: Sendable, CustomStringConvertible {
        /// The exit status, or the signal number when `signalled`.
        var status: Int32
        var signalled: Bool
        /// True when the deadline passed and the child was killed.
        var timedOut: Bool
        var stdout: String
        var stderr: String

        /// Exited by itself with `code` (not killed, not hung).
        func exited(_ code: Int32) -> Bool { !signalled && !timedOut && status == code }

        /// stdout lines without the final empty one.
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

        var description: String {
            let end = timedOut ? "hung (killed at the deadline)" : signalled ? "killed by signal \(status)" : "exit \(status)"
            return "\(end)\n--- stdout\n\(stdout.prefix(3000))\n--- stderr\n\(stderr.prefix(3000))"
        }
    }

    /// The package checkout (this file is Tests/ClassifyToolTests/Reliability/ReliabilityProcess.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The model the tool is pointed at.
    static let modelDirectory = packageRoot.appending(path: "Models/efficientnet-lite0")

    /// The executable under test: `CLASSIFY_TOOL_BINARY`, else the one SwiftPM built next to the
    /// test bundle (this target depends on it, so `swift test` builds it, also with a scratch path
    /// or a sanitizer), else `.build/debug/classify-tool`.
    static let toolExecutable: URL = {
        if let override = ProcessInfo.processInfo.environment["CLASSIFY_TOOL_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        let bundle = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let candidates = [
            bundle.deletingLastPathComponent().appending(path: "classify-tool"),
            packageRoot.appending(path: ".build/debug/classify-tool"),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// `setpriv`, used to run the tool as an unprivileged user when the tests run as root.
    static let setpriv: URL? = ["/usr/bin/setpriv", "/bin/setpriv"].map(URL.init(fileURLWithPath:))
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    /// The user id `nobody` has on Debian and Ubuntu.
    static let unprivilegedID: uid_t = 65534

    /// True when the tests can run the tool as a user to whom file permissions apply: they are
    /// not root, or they are root and can drop to `nobody` with setpriv.
    static var canRunUnprivileged: Bool { geteuid() != 0 || setpriv != nil }

    /// What a child running as `nobody` needs, where `nobody` can reach it: the executable and
    /// the model. The checkout may sit in a folder only root can enter (a clone in `/root` or in
    /// a `mktemp -d` folder, mode 0700), so the child gets copies in a world-readable folder of
    /// its own, removed when the test process exits.
    static let unprivilegedKit: (executable: URL, model: URL) = {
        let folder = FileManager.default.temporaryDirectory.appending(path: "classify-unprivileged-\(UUID().uuidString)")
        do {
            let model = folder.appending(path: "Models/efficientnet-lite0")
            try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
            for path in [folder.path, folder.appending(path: "Models").path, model.path] { chmod(path, 0o755) }
            func place(_ source: URL, at destination: URL, mode: mode_t) throws {
                try FileManager.default.copyItem(at: source, to: destination)
                chmod(destination.path, mode)
            }
            let executable = folder.appending(path: "classify-tool")
            try place(toolExecutable, at: executable, mode: 0o755)
            for name in try FileManager.default.contentsOfDirectory(atPath: modelDirectory.path) {
                try place(modelDirectory.appending(path: name), at: model.appending(path: name), mode: 0o644)
            }
            unprivilegedKitFolder = strdup(folder.path)
            atexit { if let path = unprivilegedKitFolder { removeTree(atPath: String(cString: path)) } }
            return (executable, model)
        } catch {
            fatalError("cannot prepare the tool and model for an unprivileged child in \(folder.path): \(error)")
        }
    }()

    /// The caller's environment with the model pinned, a private data home and no terminal
    /// features, so no test touches the user's index or depends on the shell.
    static func environment(home: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CLASSIFY_MODEL_DIR"] = modelDirectory.path
        if environment["CLASSIFY_PRECISION"] == nil { environment["CLASSIFY_PRECISION"] = "fp32" }  // as Tool.environment
        environment["XDG_DATA_HOME"] = home.path
        environment["HOME"] = home.path
        environment["COLUMNS"] = "100"
        environment["TERM"] = "dumb"
        return environment
    }

    /// A running child.
    final class Child: @unchecked Sendable {
        let process: Process
        let stdoutURL: URL
        let stderrURL: URL

        init(process: Process, stdoutURL: URL, stderrURL: URL) {
            self.process = process
            self.stdoutURL = stdoutURL
            self.stderrURL = stderrURL
        }

        var pid: pid_t { process.processIdentifier }
        var isRunning: Bool { process.isRunning }

        /// Sends `signal` (SIGKILL by default); true when the child was still running.
        @discardableResult
        func kill(_ signal: Int32 = SIGKILL) -> Bool {
            guard process.isRunning else { return false }
            return Glibc.kill(process.processIdentifier, signal) == 0
        }

        /// Waits until the child has stopped itself (SIGSTOP, from a `CLASSIFY_CRASH_AT` point
        /// ending in `:STOP`); false when it ended or `timeout` seconds passed first.
        func waitUntilStopped(timeout: Double = 300) -> Bool {
            let deadline = Date(timeIntervalSinceNow: timeout)
            while process.isRunning && Date() < deadline {
                // /proc/PID/stat: "PID (comm) STATE ..."; comm may hold spaces, so read after ')'.
                if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.lastIndex(of: ")"), stat[stat.index(after: close)...].hasPrefix(" T")
                {
                    return true
                }
                usleep(5_000)
            }
            return false
        }

        /// Lets a stopped child go on (SIGCONT).
        func resume() { Glibc.kill(process.processIdentifier, SIGCONT) }

        /// Waits for the end, killing the child if it is still running after `timeout` seconds.
        func wait(timeout: Double = 300) -> Outcome {
            let deadline = Date(timeIntervalSinceNow: timeout)
            var timedOut = false
            while process.isRunning {
                if Date() > deadline {
                    timedOut = true
                    Glibc.kill(process.processIdentifier, SIGKILL)
                    process.waitUntilExit()
                    break
                }
                usleep(10_000)
            }
            process.waitUntilExit()
            // FileHandle, not Data(contentsOf:), which leaks a 4 KB buffer per empty file in this
            // Foundation (seen under LeakSanitizer).
            let read = { (url: URL) -> String in
                guard let handle = try? FileHandle(forReadingFrom: url) else { return "" }
                defer { try? handle.close() }
                return (try? handle.readToEnd()).flatMap { $0 }.map { String(decoding: $0, as: UTF8.self) } ?? ""
            }
            return Outcome(
                status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                timedOut: timedOut, stdout: read(stdoutURL), stderr: read(stderrURL))
        }
    }

    /// Starts the tool (or `executable`) with `arguments`. `unprivileged` runs it as `nobody`
    /// through setpriv when the tests run as root. Output goes to files in `scratch`.
    static func start(
        _ arguments: [String], scratch: URL, executable: URL = toolExecutable, unprivileged: Bool = false,
        environment: [String: String]? = nil
    ) throws -> Child {
        let process = Process()
        var environment = environment ?? Self.environment(home: scratch)
        if unprivileged && geteuid() == 0 {
            guard let setpriv else { throw ReliabilitySkip(reason: "setpriv is needed to drop privileges") }
            let kit = executable == toolExecutable ? unprivilegedKit : (executable: executable, model: unprivilegedKit.model)
            process.executableURL = setpriv
            process.arguments = ["--reuid=\(unprivilegedID)", "--regid=\(unprivilegedID)", "--clear-groups", "--", kit.executable.path] + arguments
            environment["CLASSIFY_MODEL_DIR"] = kit.model.path
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = environment
        process.currentDirectoryURL = scratch
        let name = UUID().uuidString
        let stdoutURL = scratch.appending(path: "\(name).out"), stderrURL = scratch.appending(path: "\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        if unprivileged { chmod(stdoutURL.path, 0o666); chmod(stderrURL.path, 0o666) }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
        process.standardError = try FileHandle(forWritingTo: stderrURL)
        try process.run()
        return Child(process: process, stdoutURL: stdoutURL, stderrURL: stderrURL)
    }

    /// Runs the tool to its end (or kills it after `timeout` seconds: a hang is a failure).
    static func run(
        _ arguments: [String], scratch: URL, unprivileged: Bool = false, timeout: Double = 300
    ) throws -> Outcome {
        try start(arguments, scratch: scratch, unprivileged: unprivileged).wait(timeout: timeout)
    }
}

/// The folder of ``ReliabilityProcess/unprivilegedKit``, for the clean-up at exit (a C string:
/// an `atexit` handler cannot capture).
nonisolated(unsafe) private var unprivilegedKitFolder: UnsafeMutablePointer<CChar>?

/// A precondition of a test that this machine does not meet.
struct ReliabilitySkip: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
