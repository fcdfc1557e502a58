import CClassifyKernels
import Foundation

/// Bounds the memory that whole-picture decodes hold at once across the process's threads.
///
/// Most decoders here work in bands (JPEG by DCT scaling, PNG by rows, TIFF by strips or tiles),
/// so what they hold does not grow with the picture. libheif 1.15 has no scaled or tiled decoding:
/// a HEIC or AVIF picture is decoded whole (about 5-6 bytes per pixel inside libheif, libde265 and
/// dav1d) before it is reduced; of a grid, one tile at a time (`heif_tiled_grid.c`), which reserves
/// only that tile and its band of rows. With several jobs, two such decodes at once would be the largest
/// part of `index`'s peak memory; this budget lets them run together only while their estimated
/// sizes fit in ``capacity``, and a decode larger than the whole budget runs when it is alone.
/// Every other decode is unaffected. When a reservation of ``releaseAbove`` bytes or more ends,
/// the memory malloc holds free is given back to the system (glibc's `malloc_trim`): a process that
/// keeps freed memory for reuse (`AllocatorTuning.keepFreedMemory()`) would otherwise keep the
/// holes such a decode leaves in its heap until the end of the run.
///
/// The wait blocks the calling thread: the decode it waits for is synchronous C code that needs
/// no other task to finish, so the wait ends when it does.
///
/// ```swift
/// let status = DecodeMemoryBudget.shared.reserving(bytes: width * height * 6) { decodeWhole() }
/// ```
package final class DecodeMemoryBudget: @unchecked Sendable {
    /// The budget every decoder of the process shares: two 12-MP photos (HEIC about 72 MB, AVIF 60)
    /// decode together as before; larger pictures wait for each other, so two 50-MP HEICs never
    /// add up. Measured (docs/performance.md, "Memory of index on a mixed library"): the release of
    /// freed memory after each such decode is what lowered the peak; the capacity bounds the rest.
    package static let shared = DecodeMemoryBudget(capacity: 192 << 20, releaseAbove: 16 << 20)

    /// Bytes that decodes may hold at once (one decode larger than this still runs, alone).
    package let capacity: Int
    /// Reservations of this many bytes or more give the freed memory back when they end.
    package let releaseAbove: Int

    private let condition = NSCondition()
    private var reserved = 0
    private var running = 0
    private var largestTogether = 0

    /// Usage: `let budget = DecodeMemoryBudget(capacity: 64 << 20)`
    package init(capacity: Int, releaseAbove: Int = .max) {
        self.capacity = max(1, capacity)
        self.releaseAbove = releaseAbove
    }

    /// Runs `body` once `bytes` fit beside the decodes already running (at once when none is).
    ///
    /// Usage: `budget.reserving(bytes: 72 << 20) { decode() }`
    package func reserving<Result>(bytes: Int, _ body: () throws -> Result) rethrows -> Result {
        let bytes = max(0, bytes)
        condition.lock()
        while running > 0 && reserved + bytes > capacity { condition.wait() }
        reserved += bytes
        running += 1
        largestTogether = max(largestTogether, reserved)
        condition.unlock()
        defer {
            condition.lock()
            reserved -= bytes
            running -= 1
            condition.broadcast()
            condition.unlock()
            if bytes >= releaseAbove { _ = cls_allocator_release_freed_memory() }
        }
        return try body()
    }

    /// The most bytes reserved at one time so far (for tests).
    package var peakReserved: Int {
        condition.lock()
        defer { condition.unlock() }
        return largestTogether
    }
}
