import ClassifySupport
import Dispatch

/// Two faces of different photos within the match distance of each other.
struct SimilarPair: Sendable, Hashable {
    var first: Int32
    var second: Int32
    var squaredDistance: Float
}

/// Blocked brute-force range search over a `DescriptorMatrix`.
///
/// Exact: every pair is measured, so the result is a function of the descriptors alone. Blocking:
/// a task takes `rowChunk` rows (packed once, 512 KB at 128-d, inside L2) and runs every later
/// query against them in blocks of `queryBlock` (a 256 x 1024 tile of dot products, thresholded at
/// once). Pruning by the triangle inequality does not pay at these dimensions: faces of one person
/// are about 0.4 apart and different people about 1.0, so no bound from a pivot or a cell's radius
/// clears the 0.6 threshold.
enum DistanceScan {
    static let queryBlock = 256
    static let rowChunk = 1024

    /// Every pair (i, j) with j < i and i in `newRows` whose squared distance is below `limit`, of
    /// faces in different photos: two faces of one photo are two people (but for a mirror or a
    /// collage), so they never count as each other's neighbours. Without that, a small blurred
    /// face, whose descriptor is near many, joined the three people of a wedding photo into one.
    /// Pairs are handed to `consume` a tile at a time, from up to `threads` threads (consume must
    /// be thread-safe).
    static func pairs(
        in matrix: DescriptorMatrix, newRows: Range<Int>, limit: Float, threads: Int,
        consume: @Sendable ([SimilarPair]) -> Void
    ) {
        guard newRows.count > 0, newRows.upperBound > 1 else { return }
        // Row chunks that some new face comes after; the first chunks meet the most queries, so
        // they are handed out first and the threads finish together.
        let chunks = stride(from: 0, to: newRows.upperBound - 1, by: rowChunk).map {
            $0..<min($0 + rowChunk, newRows.upperBound - 1)
        }
        let next = Locked(0)
        let workers = max(1, min(threads, chunks.count))
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            var tile = DotTile(dimension: matrix.dimension)
            var out: [Float] = []
            while true {
                let taken = next.withLock { index -> Int in
                    defer { index += 1 }
                    return index
                }
                guard taken < chunks.count else { return }
                let chunk = chunks[taken]
                tile.load(rows: chunk, from: matrix)
                let firstQuery = max(newRows.lowerBound, chunk.lowerBound + 1)
                for blockStart in stride(from: firstQuery, to: newRows.upperBound, by: queryBlock) {
                    let block = blockStart..<min(blockStart + queryBlock, newRows.upperBound)
                    tile.dots(of: block, from: matrix, into: &out)
                    let found = threshold(out, queries: block, rows: chunk, matrix: matrix, limit: limit)
                    if !found.isEmpty { consume(found) }
                }
            }
        }
    }

    /// The pairs of a tile below the limit, keeping only rows before their query and of another photo.
    private static func threshold(
        _ dots: [Float], queries: Range<Int>, rows: Range<Int>, matrix: DescriptorMatrix, limit: Float
    ) -> [SimilarPair] {
        var found: [SimilarPair] = []
        let photos = matrix.photos
        dots.withUnsafeBufferPointer { dotBuffer in
            matrix.squaredNorms.withUnsafeBufferPointer { normBuffer in
                let dots = dotBuffer.baseAddress!, norms = normBuffer.baseAddress!
                for (slot, query) in queries.enumerated() {
                    let rowEnd = min(rows.upperBound, query)
                    guard rowEnd > rows.lowerBound else { continue }
                    let tileRow = dots + slot * rows.count - rows.lowerBound
                    let queryNorm = norms[query], queryPhoto = photos[query]
                    // max(d, 0) < limit is d < limit for a positive limit; the sum is the same
                    // expression as squaredDistance's, so the verdict is symmetric.
                    var row = rows.lowerBound
                    while row < rowEnd {
                        if (queryNorm + norms[row]) - 2 * tileRow[row] < limit, photos[row] != queryPhoto {
                            let distance = DescriptorMatrix.squaredDistance(queryNorm, norms[row], tileRow[row])
                            found.append(SimilarPair(first: Int32(query), second: Int32(row), squaredDistance: distance))
                        }
                        row += 1
                    }
                }
            }
        }
        return found
    }

    /// Squared distances from each of `queries` to each of `candidates` (row-major,
    /// queries.count x candidates.count), for the faces corrections concern.
    static func distances(in matrix: DescriptorMatrix, queries: [Int], candidates: [Int]) -> [Float] {
        guard !queries.isEmpty, !candidates.isEmpty else { return [] }
        var tile = DotTile(dimension: matrix.dimension)
        tile.load(rows: candidates, from: matrix)
        var out: [Float] = []
        tile.dots(of: queries, from: matrix, into: &out)
        for (q, query) in queries.enumerated() {
            for (c, candidate) in candidates.enumerated() {
                let index = q * candidates.count + c
                out[index] = DescriptorMatrix.squaredDistance(matrix.squaredNorms[query], matrix.squaredNorms[candidate], out[index])
            }
        }
        return Array(out.prefix(queries.count * candidates.count))
    }
}
