import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing to stdout and stderr: results on stdout, diagnostics on stderr.
enum Terminal {
    nonisolated(unsafe) static var quiet = false
    nonisolated(unsafe) static var verbose = false

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A diagnostic, unless `--quiet`.
    static func note(_ line: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// An error, always shown.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Detail shown only with `--verbose`.
    static func debug(_ line: String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
    static var stdoutIsTerminal: Bool { isatty(1) == 1 }
}

/// `--quiet` / `--verbose`, on every command.
struct VerbosityOptions: ParsableArguments {
    @Flag(name: [.short, .long], help: "Print nothing but results and errors.") var quiet = false
    @Flag(name: [.short, .long], help: "Print more diagnostics on stderr.") var verbose = false

    func apply() {
        Terminal.quiet = quiet
        Terminal.verbose = verbose && !quiet
    }
}

import ArgumentParser
