import ClassifySupport
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writing to stdout and stderr: results on stdout, diagnostics on stderr.
///
/// Lines may hold paths in `RawPath` form; they are written as the bytes they stand for, so a
/// file name that is not UTF-8 is printed exactly as the file system has it and a script reading
/// the output reaches the file.
enum Terminal {
    nonisolated(unsafe) static var quiet = false
    nonisolated(unsafe) static var verbose = false

    static func out(_ line: String) {
        FileHandle.standardOutput.write(Data(RawPath.bytes(of: line + "\n")))
    }

    /// `record` followed by `terminator` (a NUL for `-0` output), as raw bytes.
    static func out(_ record: String, terminator: UInt8) {
        FileHandle.standardOutput.write(Data(RawPath.bytes(of: record) + [terminator]))
    }

    /// JSON text (from JSONSerialization) on one line; a path whose name is not UTF-8 is shown
    /// readably with its exact bytes beside it (`RawPath.portableJSON`).
    static func json(_ data: Data) throws {
        out(String(decoding: try RawPath.portableJSON(data), as: UTF8.self))
    }

    /// The summary line for files passed over as not images, e.g. `skipped 3 files that are not
    /// images (no image extension or signature); --verbose lists them`.
    static func skippedSummary(_ count: Int) -> String {
        let files = count == 1 ? "1 file that is not an image" : "\(count) files that are not images"
        return "skipped \(files) (no image extension or signature)\(verbose ? "" : "; --verbose lists them")"
    }

    /// The end of a per-file command (`classify`, `faces`): the skipped files' line, then exit 1
    /// when no image was found, 2 when some files failed.
    static func finishFileRun(count: Int, failures: Int, skipped: Int, paths: [String]) throws {
        if skipped > 0 { note(skippedSummary(skipped)) }
        if count == 0 {
            error("error: no image files found in \(paths.joined(separator: ", "))")
            throw ExitCode(ToolExit.failure)
        }
        if failures > 0 {
            note("\(failures) of \(count) files failed")
            throw ExitCode(ToolExit.someFilesFailed)
        }
    }

    /// A diagnostic, unless `--quiet`.
    static func note(_ line: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data(RawPath.bytes(of: line + "\n")))
    }

    /// An error, always shown.
    static func error(_ line: String) {
        FileHandle.standardError.write(Data(RawPath.bytes(of: line + "\n")))
    }

    /// Detail shown only with `--verbose`.
    static func debug(_ line: String) {
        guard verbose else { return }
        FileHandle.standardError.write(Data(RawPath.bytes(of: line + "\n")))
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
