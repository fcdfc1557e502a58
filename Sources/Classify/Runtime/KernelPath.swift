import CClassifyKernels

/// Which variant of the runtime's kernels runs: 512-bit AVX-512, 256-bit AVX2+FMA, or portable C.
///
/// The best one the CPU and OS support is chosen at run time (cpuid and XGETBV); the environment
/// variable `CLASSIFY_KERNELS=avx512|avx2|portable` or `KernelPath.select(_:)` can force a lower
/// one, for measurements. That setting is process-wide; change it between inferences.
/// ``run(on:_:)`` chooses a path for one thread's work only (tests comparing paths while other
/// work runs in the same process).
///
/// Usage: `let used = KernelPath.select(.avx2)  // returns the path in effect`
public enum KernelPath: String, Sendable, CaseIterable, Comparable {
    case portable, avx2, avx512

    /// The path the kernels use now on this thread.
    ///
    /// Usage: `print(KernelPath.current)`
    public static var current: KernelPath { KernelPath(level: cls_kernels_level()) }

    /// The best path this CPU and OS support.
    ///
    /// Usage: `if KernelPath.best >= .avx512 { ... }`
    public static var best: KernelPath { KernelPath(level: cls_cpu_kernel_level()) }

    /// The paths this machine can run, slowest first.
    ///
    /// Usage: `for path in KernelPath.available { ... }`
    public static var available: [KernelPath] { allCases.filter { $0 <= best } }

    /// Makes the kernels use `path`, or the best available below it; returns the path in effect.
    ///
    /// Usage: `KernelPath.select(.portable)`
    @discardableResult
    public static func select(_ path: KernelPath) -> KernelPath {
        KernelPath(level: cls_kernels_set_level(path.level))
    }

    /// Runs `body` with the kernels it calls on this thread, and the parallel tasks they start,
    /// on `path` (or the best available below it); other threads keep the process-wide path.
    /// `body` must not suspend or hop threads: the choice belongs to the calling thread.
    ///
    /// Usage: `let output = try KernelPath.run(on: .portable) { try network.run(input) }`
    package static func run<Result>(on path: KernelPath, _ body: () throws -> Result) rethrows -> Result {
        let outer = cls_kernels_set_thread_level(path.level)
        defer { cls_kernels_set_thread_level(outer) }
        return try body()
    }

    /// The int8 kernel variant in effect on this thread: `avx512-vnni`, `avx-vnni`, `avx2`
    /// (vpmaddubsw) or `portable` (see `cls_int8_variant`).
    ///
    /// Usage: `print(KernelPath.currentInt8Variant)`
    public static var currentInt8Variant: String { String(cString: cls_int8_variant_name(cls_int8_variant())) }

    /// What a CPU needs for this path, for messages about a path that cannot run.
    ///
    /// Usage: `print(KernelPath.avx512.requirement)`
    public var requirement: String {
        switch self {
        case .portable: "nothing"
        case .avx2: "AVX2 and FMA with the OS saving YMM state"
        case .avx512: "AVX-512F/DQ/BW/VL with the OS saving opmask and ZMM state"
        }
    }

    /// Usage: `KernelPath.avx2 < .avx512`
    public static func < (a: KernelPath, b: KernelPath) -> Bool { a.level < b.level }

    var level: Int32 {
        switch self {
        case .portable: Int32(CLS_LEVEL_PORTABLE)
        case .avx2: Int32(CLS_LEVEL_AVX2)
        case .avx512: Int32(CLS_LEVEL_AVX512)
        }
    }

    init(level: Int32) {
        switch level {
        case Int32(CLS_LEVEL_AVX512): self = .avx512
        case Int32(CLS_LEVEL_AVX2): self = .avx2
        default: self = .portable
        }
    }
}
