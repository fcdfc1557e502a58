import Foundation
import Testing

/// `--help` of every command, pinned to the text files in Tests/ClassifyToolTests/Help/.
///
/// After changing a command's options or help text, regenerate the files and review the diff:
///
///     CLASSIFY_REGENERATE_HELP=1 swift test --filter HelpTests
///     git diff Tests/ClassifyToolTests/Help
///
/// The tool runs with COLUMNS=80, so the wrapping does not depend on the terminal.
@Suite struct HelpTests {
    static let commands = ["", "classify", "faces", "index", "search", "show", "tag", "export", "stats", "labels", "calibrate", "evaluate", "bench", "similar", "duplicates", "bench-similar", "serve", "bench-index", "bench-writers", "bench-faces", "copy"]
    static let directory = Tool.packageRoot.appending(path: "Tests/ClassifyToolTests/Help")

    @Test(arguments: commands)
    func helpMatchesThePinnedText(command: String) throws {
        let arguments = (command.isEmpty ? [] : [command]) + ["--help"]
        let result = try Tool.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("Example"), "every command's help shows an example")
        let file = Self.directory.appending(path: "\(command.isEmpty ? "classify-tool" : command).txt")
        if ProcessInfo.processInfo.environment["CLASSIFY_REGENERATE_HELP"] == "1" {
            try FileManager.default.createDirectory(at: Self.directory, withIntermediateDirectories: true)
            try Data(result.stdout.utf8).write(to: file)
        }
        let pinned = try String(contentsOf: file, encoding: .utf8)
        #expect(result.stdout == pinned, "classify-tool \(arguments.joined(separator: " ")) differs from \(file.lastPathComponent); see HelpTests to regenerate")
    }

    @Test func everyCommandHasPinnedHelp() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set(Self.commands.map { ($0.isEmpty ? "classify-tool" : $0) + ".txt" }))
    }
}
