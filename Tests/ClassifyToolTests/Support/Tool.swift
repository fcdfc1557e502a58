import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `classify-tool` executable as a child process and captures what it printed.
///
/// The binary is the one SwiftPM built next to the test bundle (this test target depends on the
/// executable target, so `swift test` builds it); `CLASSIFY_TOOL_BINARY` points the tests at
/// another build, e.g. an installed copy.
///
/// Usage: `let result = try Tool.run(["search", "cat", "--db", db])`
enum Tool {
    /// What one run printed and how it ended.
    struct Result: Sendable {
        var status: Int32
        var stdout: String
        var stderr: String
        /// stdout exactly as written (paths whose names are not UTF-8 are raw bytes there).
        var stdoutBytes: [UInt8] = []
        /// stdout split into lines, without the trailing empty line.
        var lines: [String] {
            guard !stdout.isEmpty else { return [] }
            return stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(stdout.hasSuffix("\n") ? 1 : 0)
        }
    }

    /// The executable under test.
    static let executable: URL = {
        if let override = ProcessInfo.processInfo.environment["CLASSIFY_TOOL_BINARY"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return built("classify-tool")
    }()

    /// The developers' benchmarks (`classify-bench`), which some tests use to build large libraries.
    static let benchExecutable: URL = built("classify-bench")

    /// The product `name` SwiftPM built beside the test bundle.
    private static func built(_ name: String) -> URL {
        // The test bundle (classifyPackageTests.xctest) is a file in the products directory.
        var candidates: [URL] = []
        if let bundle = Bundle.main.executableURL { candidates.append(bundle.deletingLastPathComponent().appending(path: name)) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: name))
        candidates.append(packageRoot.appending(path: ".build/debug/\(name)"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }

    /// The package checkout (this file is Tests/ClassifyToolTests/Support/Tool.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The environment every run gets: the caller's, without a model override, 80 columns, a
    /// private data home so no test touches the user's index, and fp32 unless the caller sets
    /// `CLASSIFY_PRECISION`: the tool's own default is int8 on CPUs with VNNI only, and what the
    /// tests expect of labels must not depend on the CPU that runs them.
    static func environment(dataHome: URL, extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CLASSIFY_MODEL_DIR"] = nil
        if environment["CLASSIFY_PRECISION"] == nil { environment["CLASSIFY_PRECISION"] = "fp32" }
        environment["COLUMNS"] = "80"
        environment["XDG_DATA_HOME"] = dataHome.path
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs the tool (or, with `executable`, another built product) to completion.
    static func run(_ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil, executable: URL = Tool.executable) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment ?? Self.environment(dataHome: FileManager.default.temporaryDirectory.appending(path: "classify-tool-tests-unused"))
        if let directory { process.currentDirectoryURL = directory }
        return try capture(process) { _ in }
    }

    /// Starts `process` with pipes, calls `whileRunning` with it, and collects output until it exits.
    static func capture(_ process: Process, whileRunning: (Process) throws -> Void) throws -> Result {
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let stdout = PipeReader(out.fileHandleForReading), stderr = PipeReader(err.fileHandleForReading)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        try whileRunning(process)
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: stdout.text(), stderr: stderr.text(), stdoutBytes: stdout.bytes())
    }
}

/// Drains a pipe on a background thread so a chatty child never blocks on a full pipe.
final class PipeReader: @unchecked Sendable {
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
    }

    /// Everything the child wrote, as bytes, once it closed the pipe.
    func bytes() -> [UInt8] {
        done.wait()
        done.signal()   // so bytes() and text() may both be called
        return Array(data)
    }

    /// Everything the child wrote, once it closed the pipe.
    func text() -> String {
        done.wait()
        done.signal()   // so bytes() and text() may both be called
        return String(decoding: data, as: UTF8.self)
    }
}
