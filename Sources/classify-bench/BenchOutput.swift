import Foundation

/// Where a benchmark writes: figures to stdout, progress to stderr.
///
/// Usage: `BenchOutput.progress("building 100,000 images")`, then `BenchOutput.figures(report)`
enum BenchOutput {
    /// A line of results.
    static func figures(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// A progress line.
    static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
