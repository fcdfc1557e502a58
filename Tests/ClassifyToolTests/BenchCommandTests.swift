import Classify
import Foundation
import Testing

/// `bench --kernels` and `CLASSIFY_KERNELS`: the kernel path asked for is the one that runs, and
/// one that cannot run is refused or reported, never silently swapped.
@Suite struct BenchCommandTests {
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        Tool.environment(dataHome: FileManager.default.temporaryDirectory.appending(path: "classify-tool-tests-unused"), extra: extra)
    }

    static func kernels(in result: Tool.Result) throws -> String? {
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return object?["kernels"] as? String
    }

    @Test(arguments: KernelPath.allCases)
    func benchRunsThePathAskedFor(path: KernelPath) throws {
        let result = try Tool.run(["bench", "--kernels", path.rawValue, "--iterations", "1", "--json"], environment: Self.environment())
        if path <= KernelPath.best {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try Self.kernels(in: result) == path.rawValue)
        } else {
            #expect(result.status != 0)
            #expect(result.stderr.contains("this CPU lacks"))
        }
    }

    @Test func unknownPathIsRefused() throws {
        let result = try Tool.run(["bench", "--kernels", "sse", "--iterations", "1"], environment: Self.environment())
        #expect(result.status != 0)
        #expect(result.stderr.contains("--kernels must be avx512, avx2 or portable"))
    }

    @Test func environmentVariableChoosesThePath() throws {
        let portable = try Tool.run(["bench", "--iterations", "1", "--json"], environment: Self.environment(["CLASSIFY_KERNELS": "portable"]))
        #expect(portable.status == 0)
        #expect(try Self.kernels(in: portable) == "portable")
        let unknown = try Tool.run(["bench", "--iterations", "1", "--json"], environment: Self.environment(["CLASSIFY_KERNELS": "sse"]))
        #expect(unknown.status == 0)
        #expect(unknown.stderr.contains("CLASSIFY_KERNELS=sse is not one of avx512, avx2, portable"))
        #expect(try Self.kernels(in: unknown) == KernelPath.best.rawValue)
    }
}
