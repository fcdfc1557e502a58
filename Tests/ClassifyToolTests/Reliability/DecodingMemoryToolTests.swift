import Classify
import ClassifyTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Large PNG and TIFF photos are classified without a full-size pixel buffer: the decoders
/// reduce rows by 2, 4 or 8 as they arrive; large HEIC and AVIF grids are decoded a tile at a
/// time (libheif alone holds about 3 bytes per pixel of a whole grid, 172 MiB at 60 MP). Checked by memory, not time: each run of
/// `classify-tool classify` is a child process whose peak resident memory (`ru_maxrss` from
/// wait4, that child's alone, so tests running beside it cannot disturb it) is compared with a
/// run on a small photo. A 60-megapixel picture needs 172 MiB as one RGB buffer (and libtiff's
/// RGBA raster 229 MiB); the allowance, 64 MiB above the small run plus the file's own bytes
/// (which `classify` holds while decoding), is far below either, so the check cannot pass by
/// luck and does not depend on the machine or the build configuration.
extension Reliability {
    @Suite struct DecodingMemoryToolTests {
        /// 8944 x 6708: 60 megapixels, 4:3.
        static let largeWidth = 8944
        static let largeHeight = 6708
        static let allowance = 64 << 20

        /// Runs the tool with `arguments`, output discarded, and returns its exit status and peak
        /// resident memory in bytes.
        static func peakMemory(_ arguments: [String], home: URL) throws -> (status: Int32, bytes: Int) {
            let executable = ReliabilityProcess.toolExecutable.path
            let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
            let environment = ReliabilityProcess.environment(home: home).map { "\($0.key)=\($0.value)" }
            let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
            defer { (argv + envp).forEach { free($0) } }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            for descriptor: Int32 in [0, 1, 2] {
                posix_spawn_file_actions_addopen(&actions, descriptor, "/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY, 0)
            }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
            guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL) }
            var status: Int32 = 0
            var usage = rusage()
            while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
            // ru_maxrss is in KiB on Linux; a normal exit has the low 7 bits clear.
            return (status & 0x7f == 0 ? (status >> 8) & 0xff : -1, usage.ru_maxrss * 1024)
        }

        @Test(.timeLimit(.minutes(20)))
        func largePicturesAreReducedWhileDecoding() throws {
            let scratch = try ScratchFolder("decoding-memory")
            let home = scratch.url.appending(path: "home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let small = scratch.url.appending(path: "small.png")
            try TestTIFF.writeLargePNG(to: small, width: 640, height: 480)
            let baseline = try Self.peakMemory(["classify", small.path], home: home)
            try #require(baseline.status == 0, "the small photo classifies")

            var large: [(name: String, write: (URL) throws -> Void)] = [
                ("large.png", { try TestTIFF.writeLargePNG(to: $0, width: Self.largeWidth, height: Self.largeHeight) }),
                ("strips.tif", { try TestTIFF.writeLargeTIFF(to: $0, width: Self.largeWidth, height: Self.largeHeight) }),
                ("tiles.tif", { try TestTIFF.writeLargeTIFF(to: $0, width: Self.largeWidth, height: Self.largeHeight, tileSize: 256) }),
            ]
            // The 60-MP grids of the format fixtures (18 x 14 tiles of 512 sharing one tile's bytes).
            let fixtures = Tool.packageRoot.appending(path: "Tests/ClassifyTests/Fixtures/formats")
            for (name, format) in [("heic-grid-60mp.heic", ImageFormat.heif), ("avif-grid-60mp.avif", .avif)] {
                guard ImageDecoder.availableFormats.contains(format) else {
                    print("skipped \(name): this libheif has no \(format) decoder")
                    continue
                }
                large.append((name, { try FileManager.default.copyItem(at: fixtures.appending(path: name), to: $0) }))
            }
            for (name, write) in large {
                let url = scratch.url.appending(path: name)
                try write(url)
                let fileBytes = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
                let run = try Self.peakMemory(["classify", url.path], home: home)
                #expect(run.status == 0, "\(name) classifies")
                let extra = run.bytes - baseline.bytes - fileBytes
                #expect(
                    extra < Self.allowance,
                    "\(name): \(run.bytes >> 20) MiB peak, \(baseline.bytes >> 20) MiB for a small photo, \(fileBytes >> 20) MiB file")
                try FileManager.default.removeItem(at: url)
            }
        }
    }
}
