import ArgumentParser
import Foundation
import TagIndex

extension Query {
    /// Parses a query given on the command line; a syntax error is printed with a caret under
    /// its position and ends the command with exit status 1. `nil` (no query) is the empty query.
    ///
    /// Usage: `var query = try Query(commandLine: options.query, under: options.under)`
    init(commandLine text: String?, under folders: [String] = []) throws {
        self = Query()
        do {
            if let text { self = try Query(parsing: text) }
        } catch {
            Terminal.error("error: \(error.message) (at character \(error.offset + 1))\n\(error.caretLines)")
            throw ExitCode(ToolExit.failure)
        }
        filters.folders += folders.map(Self.folder)
    }

    /// A folder given on the command line as the index stores it: a path made absolute, or a
    /// named library's folder (`photos:/2023`, in a shared PostgreSQL index) as written.
    ///
    /// Usage: `query.filters.folders += under.map(Query.folder)`
    static func folder(_ given: String) -> String {
        guard LibraryRoot.isLibraryPath(given) else { return URL(fileURLWithPath: given).standardizedFileURL.path }
        var kept = given.hasSuffix(":") ? given + "/" : given
        while kept.hasSuffix("/") && !kept.hasSuffix(":/") { kept.removeLast() }
        // `photos:/` is the whole library: its range is [photos:/, photos:0), which `photos:` gives.
        return kept.hasSuffix(":/") ? String(kept.dropLast()) : kept
    }
}
