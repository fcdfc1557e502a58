import ArgumentParser
import Foundation
import TagIndex

/// `--db PATH`, shared by every command that reads or writes the index.
///
/// Usage: `@OptionGroup var database: DatabaseOptions` then `let index = try database.open(create: false)`
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Index database (default: index.sqlite in $XDG_DATA_HOME/classify-tool or ~/.local/share/classify-tool).", valueName: "path"))
    var db: String?

    /// `$XDG_DATA_HOME/classify-tool/index.sqlite`, or `$HOME/.local/share/classify-tool/index.sqlite`.
    static var defaultLocation: URL {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }?.appending(path: ".local/share")
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        return dataHome.appending(path: "classify-tool/index.sqlite")
    }

    var location: URL { db.map { URL(fileURLWithPath: $0) } ?? Self.defaultLocation }

    /// Opens (and creates, when `create`) the index.
    func open(create: Bool) throws -> TagIndex {
        let url = location
        if !FileManager.default.fileExists(atPath: url.path) {
            guard create else {
                Terminal.error("error: no index at \(url.path); build one with: classify-tool index FOLDER\(db == nil ? "" : " --db \(url.path)")")
                throw ExitCode(ToolExit.failure)
            }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        }
        return try TagIndex(url: url)
    }
}
