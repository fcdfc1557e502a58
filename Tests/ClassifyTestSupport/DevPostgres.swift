import Foundation

/// The throwaway PostgreSQL cluster of `Scripts/dev-postgres`, for the test targets that need a
/// server: started once per test process (reused when already running; CI stops it after the
/// tests).
///
/// Usage: `let url = try DevPostgres.start().get()   // postgres://classify@127.0.0.1:PORT/classify`
public enum DevPostgres {
    /// Why the cluster could not be started.
    public struct StartFailure: Error, Sendable {
        public var message: String
        public init(message: String) { self.message = message }
    }

    /// Runs `Scripts/dev-postgres start` and returns the cluster's URL, or the script's message.
    ///
    /// Usage: `let url = try DevPostgres.start().get()`
    public static func start() -> Result<String, StartFailure> {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let process = Process()
        process.executableURL = root.appending(path: "Scripts/dev-postgres")
        process.arguments = ["start"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch { return .failure(StartFailure(message: "Scripts/dev-postgres: \(error)")) }
        // Foundation keeps the parent's copies of the write ends open: close them, or reading
        // to the end never ends.
        try? out.fileHandleForWriting.close()
        try? err.fileHandleForWriting.close()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let url = String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, url.hasPrefix("postgres://") else {
            let message = String(decoding: errors, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            return .failure(StartFailure(message: message.isEmpty ? "Scripts/dev-postgres start failed" : message))
        }
        return .success(url)
    }
}
