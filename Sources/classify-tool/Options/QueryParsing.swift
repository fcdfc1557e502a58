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
        filters.folders += folders.map { URL(fileURLWithPath: $0).standardizedFileURL.path }
    }
}
