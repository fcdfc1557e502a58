import Foundation

#if FUZZING
    /// libFuzzer's driver (part of the runtime `-sanitize=fuzzer` links).
    @_silgen_name("LLVMFuzzerRunDriver")
    private func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// Hands the command line to libFuzzer's driver with `target` as the function under test.
    /// A fuzz executable calls it from its `@_cdecl` entry point (SwiftPM links that entry as
    /// `main`, which keeps libFuzzer's own `main` out).
    ///
    /// Usage: `@_cdecl("fuzz_query_main") func fuzzingMain(_ c: Int32, _ v: ...) -> Int32 { runLibFuzzer(c, v, fuzzQueryOneInput) }`
    public func runLibFuzzer(
        _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
        _ target: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32 {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments, target)
    }
#endif

/// Runs each file's bytes through `target` and prints `ok PATH`: the replay half of a fuzz
/// tool's normal build (a crash reproduces here without the fuzzer).
///
/// Usage: `try replayFuzzInputs(paths) { FuzzQuery.run($0) }`
public func replayFuzzInputs(_ paths: [String], through target: ([UInt8]) -> Void) throws {
    for path in paths {
        target([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        print("ok \(path)")
    }
}
