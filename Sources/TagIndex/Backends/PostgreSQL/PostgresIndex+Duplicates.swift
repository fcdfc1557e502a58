import Foundation
import PostgresNIO

/// Near-duplicates on PostgreSQL: the stored feature prints of the images a query keeps stream
/// from the server in blocks (as `similar` reads them) into one in-memory matrix, 2 KB a print
/// (fp16), then every pair is scored and grouped here with the same code as on SQLite, so both
/// backends find the same groups.
extension PostgresIndex {
    /// Groups of near-duplicate images, largest first, each with a suggested keeper, as
    /// ``TagIndex/duplicateGroups(threshold:query:)``.
    ///
    /// Usage: `let groups = try await index.duplicateGroups(threshold: 0.9, query: try Query(parsing: "under:/photos/2024"))`
    public func duplicateGroups(threshold: Double = TagIndex.defaultDuplicateThreshold, query: Query = Query()) async throws -> [DuplicateGroup] {
        let matrix = try await printMatrix(query)
        let components = matrix.components(threshold: Float(threshold))
        var binds = PostgresBindings()
        binds.append(components.flatMap { $0.map { matrix.ids[$0] } })
        var facts: [Int64: DuplicateMember] = [:]
        for (id, path, width, height, size) in try await session.all(
            "SELECT id, path, width, height, size FROM images WHERE id = ANY($1::bigint[])", binds,
            { try $0.decode((Int64, String, Int?, Int?, Int64).self) })
        {
            facts[id] = DuplicateMember(imageID: id, path: path, width: width, height: height, size: size, score: 1)
        }
        return DuplicateGroup.ranked(components, matrix, facts: facts)
    }

    /// Every pair of images (those `query` keeps) scoring at least `minimumScore`, best first, as
    /// ``TagIndex/similarPairs(minimumScore:query:)``.
    ///
    /// Usage: `let pairs = try await index.similarPairs(minimumScore: 0.7, query: Query())`
    public func similarPairs(minimumScore: Double, query: Query = Query()) async throws -> [SimilarPair] {
        let matrix = try await printMatrix(query)
        var binds = PostgresBindings()
        binds.append(matrix.ids)
        var paths: [Int64: String] = [:]
        for (id, path) in try await session.all("SELECT id, path FROM images WHERE id = ANY($1::bigint[])", binds, { try $0.decode((Int64, String).self) }) {
            paths[id] = path
        }
        return matrix.similarPairs(minimumScore: Float(minimumScore), paths: paths)
    }

    /// The prints of the images `query` keeps, in id order, read a block at a time.
    private func printMatrix(_ query: Query) async throws -> PrintMatrix {
        let dimension = FeaturePrint.dimension
        var ids: [Int64] = []
        var halves: [UInt16] = []
        try await PostgresPrints.forEachBlock(candidates: try await candidateIDs(query), session) { blockIDs, prints in
            let start = halves.count
            halves.append(contentsOf: repeatElement(0, count: blockIDs.count * dimension))
            halves.withUnsafeMutableBytes { ($0.baseAddress! + start * 2).copyMemory(from: prints.baseAddress!, byteCount: prints.count) }
            ids.append(contentsOf: blockIDs)
        }
        return PrintMatrix(ids: ids, halves: halves)
    }
}
