import CClassifyKernels

/// Process-wide memory allocator settings for programs that classify many images.
///
/// Each image allocates a few buffers of about a megabyte (the file's bytes, decoded pixels).
/// With glibc's defaults such a buffer is a fresh mapping, or is trimmed from the heap when
/// freed, so every image pays for page faults again: on a virtual machine that was 2 ms per
/// 12-MP JPEG just to read the file. `keepFreedMemory()` makes glibc keep reusing that memory,
/// in at most ``arenas`` arenas so that what it keeps stays bounded.
/// It changes the whole process, so the library never calls it by itself; `classify-tool` does,
/// at start-up. Elsewhere than glibc it does nothing and returns false.
///
/// ```swift
/// AllocatorTuning.keepFreedMemory()   // once, before classifying a folder
/// ```
public enum AllocatorTuning {
    /// Serves allocations up to 64 MiB from the heap and keeps up to 256 MiB of freed memory
    /// mapped. Returns whether the allocator accepted both settings.
    ///
    /// ```swift
    /// if !AllocatorTuning.keepFreedMemory() { print("allocator settings not available") }
    /// ```
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        cls_allocator_keep_freed_memory(64 << 20, 256 << 20) == 1 && cls_allocator_limit_arenas(Int32(arenas)) == 1
    }

    /// The malloc arenas ``keepFreedMemory()`` allows. glibc gives a thread that finds the heap
    /// busy an arena of its own (up to eight per core), each keeping its freed memory, so the peak
    /// depended on which threads happened to decode what: `index --jobs 2` on 18 mixed 12-MP photos
    /// (`Scripts/measure-index-memory /tmp/memcorpus3 3 -- --jobs 2`, docs/performance.md) peaked at
    /// 287, 352 and 307 MB with glibc's count and at 295, 291 and 287 MB with two arenas.
    ///
    /// Usage: `AllocatorTuning.arenas   // 2`
    public static let arenas = 2
}
