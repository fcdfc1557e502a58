import ArgumentParser
import Foundation
import TagIndex
import TagIndexPostgres

/// `--db PATH|URL` (else `$CLASSIFY_DB`), shared by every command that reads or writes the index.
///
/// Usage: `@OptionGroup var database: DatabaseOptions` then `let index = try database.open(create: false)`
struct DatabaseOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Index database: a SQLite file, or postgres://USER@HOST[:PORT]/DBNAME (default: $CLASSIFY_DB, else index.sqlite in $XDG_DATA_HOME/classify-tool or ~/.local/share/classify-tool).", valueName: "path|url"))
    var db: String?

    /// `$XDG_DATA_HOME/classify-tool/index.sqlite`, or `$HOME/.local/share/classify-tool/index.sqlite`.
    static var defaultLocation: URL {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }
            ?? environment["HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0, isDirectory: true) }?.appending(path: ".local/share")
            ?? FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        return dataHome.appending(path: "classify-tool/index.sqlite")
    }

    /// The location the user gave: `--db`, else a non-empty `$CLASSIFY_DB`, else nil (the default file).
    var given: String? {
        if let db { return db }
        if let fromEnvironment = ProcessInfo.processInfo.environment["CLASSIFY_DB"], !fromEnvironment.isEmpty { return fromEnvironment }
        return nil
    }

    /// Rejects, before any command runs, a location that is a URL of an unsupported scheme or a
    /// malformed PostgreSQL URL (messages never show a password).
    func validate() throws {
        guard let given else { return }
        do {
            _ = try IndexLocation(parsing: given)
        } catch let error as IndexLocationError {
            throw ValidationError("\(db != nil ? "--db" : "CLASSIFY_DB"): \(error)")
        }
    }

    /// The parsed location (after `validate()`).
    var indexLocation: IndexLocation {
        guard let given else { return .sqlite(Self.defaultLocation) }
        return (try? IndexLocation(parsing: given)) ?? .sqlite(URL(fileURLWithPath: given))
    }

    /// The index file when no `--db` is given (the default), or the SQLite file given.
    var location: URL { indexLocation.fileURL ?? Self.defaultLocation }

    /// Where the index is, as messages name it (a URL never shows its password).
    var displayLocation: String { indexLocation.description }

    /// Opens the existing index wherever it is, through one call whatever the database; a
    /// failure (no index file, a server that cannot be reached) is reported and exits.
    func openBackend() async throws -> any IndexBackend {
        if let file = indexLocation.fileURL, !FileManager.default.fileExists(atPath: file.path) {
            Terminal.error("error: no index at \(file.path); build one with: classify-tool index FOLDER\(given == nil ? "" : " --db \(file.path)")")
            throw ExitCode(ToolExit.failure)
        }
        do {
            return try await IndexOpener.standard.open(indexLocation)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
    }
}
