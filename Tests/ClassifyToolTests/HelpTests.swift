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
    static let commands = ["", "classify", "faces", "index", "search", "show", "tag", "export", "stats", "labels", "calibrate", "evaluate", "bench", "similar", "duplicates", "serve", "copy", "people"]
    /// classify-bench's subcommands, pinned in Help/classify-bench/.
    static let benchCommands = ["", "index", "similar", "writers", "faces", "face-recall", "face-network", "stages", "places", "people"]
    static let directory = Tool.packageRoot.appending(path: "Tests/ClassifyToolTests/Help")

    @Test(arguments: commands)
    func helpMatchesThePinnedText(command: String) throws {
        try expectPinnedHelp(command, of: Tool.executable, in: Self.directory, rootName: "classify-tool")
    }

    @Test(arguments: benchCommands)
    func benchHelpMatchesThePinnedText(command: String) throws {
        try expectPinnedHelp(command, of: Tool.benchExecutable, in: Self.directory.appending(path: "classify-bench"), rootName: "classify-bench")
    }

    @Test func everyCommandHasPinnedHelp() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".txt") }
        #expect(Set(files) == Set(Self.commands.map { ($0.isEmpty ? "classify-tool" : $0) + ".txt" }))
        let benchFiles = try FileManager.default.contentsOfDirectory(atPath: Self.directory.appending(path: "classify-bench").path)
            .filter { $0.hasSuffix(".txt") }
        #expect(Set(benchFiles) == Set(Self.benchCommands.map { ($0.isEmpty ? "classify-bench" : $0) + ".txt" }))
    }

    /// A photo owner's commands come first; benchmarks are not among them.
    @Test func toolHelpListsNoBenchmarks() throws {
        let help = try Tool.run(["--help"]).stdout
        for benchmark in ["bench-index", "bench-similar", "bench-writers", "bench-faces"] {
            #expect(!help.contains(benchmark))
        }
        #expect(!help.contains("../shared"))
    }

    /// Runs `executable [command] --help` and compares it with the pinned file (or rewrites the
    /// file when CLASSIFY_REGENERATE_HELP=1).
    private func expectPinnedHelp(_ command: String, of executable: URL, in directory: URL, rootName: String) throws {
        let arguments = (command.isEmpty ? [] : [command]) + ["--help"]
        let result = try Tool.run(arguments, executable: executable)
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        #expect(result.stdout.contains("Example"), "every command's help shows an example")
        #expect(!result.stdout.contains("../shared"), "help names no folder that only developers have")
        let file = directory.appending(path: "\(command.isEmpty ? rootName : command).txt")
        if ProcessInfo.processInfo.environment["CLASSIFY_REGENERATE_HELP"] == "1" {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(result.stdout.utf8).write(to: file)
        }
        let pinned = try String(contentsOf: file, encoding: .utf8)
        #expect(result.stdout == pinned, "\(rootName) \(arguments.joined(separator: " ")) differs from \(file.lastPathComponent); see HelpTests to regenerate")
    }
}
