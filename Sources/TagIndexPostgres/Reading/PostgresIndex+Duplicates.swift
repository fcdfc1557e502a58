import TagIndex
import Foundation
import PostgresNIO

/// Near-duplicates on PostgreSQL: the stored feature prints of the images a query keeps stream
/// from the server in blocks (as `similar` reads them) into one in-memory matrix, 2 KB a print
/// (fp16), then every pair is scored and grouped here with the same code as on SQLite, so both
/// backends find the same groups.
extension PostgresIndex {
    /// Groups of near-duplicate images, largest first, each with a suggested keeper, as
    /// ``SQLiteIndex/duplicateGroups(threshold:query:)``.
    ///
    /// Usage: `let groups = try await index.duplicateGroups(threshold: 0.9, query: try Query(parsing: "under:/photos/2024"))`
    public func duplicateGroups(threshold: Double = SQLiteIndex.defaultDuplicateThreshold, query: Query = Query()) async throws -> [DuplicateGroup] {
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

    /// The near-duplicate group of the indexed image at `path`, found outwards from it a round at
    /// a time with the same steps as ``SQLiteIndex/duplicateGroup(containingPath:threshold:maximumMembers:knownNeighbours:)``
    /// (each round streams the stored prints once); nil when no other image is that close.
    ///
    /// Usage: `if let group = try await index.duplicateGroup(containingPath: "photos:/dog.jpg") { print(group.keeper.path) }`
    public func duplicateGroup(
        containingPath path: String, threshold: Double = SQLiteIndex.defaultDuplicateThreshold, maximumMembers: Int = 200,
        knownNeighbours: [Int64]? = nil
    ) async throws -> DuplicateGroup? {
        var binds = PostgresBindings()
        binds.append(path)
        let stored = try await session.all("SELECT id, feature_print FROM images WHERE path = $1", binds) { try $0.decode((Int64, ByteBuffer?).self) }
        guard let (start, bytes) = stored.first, let bytes, let first = FeaturePrint.decode(Array(bytes.readableBytesView)) else { return nil }
        var growth = DuplicateGroupGrowth(start: start, print: first, threshold: threshold, maximumMembers: maximumMembers)
        if let knownNeighbours {
            var neighbours: [(Int64, [Float])] = []
            try await forEachPrintBlock(candidates: growth.neighbourIDs(knownNeighbours)) { ids, halves, count in
                for row in 0..<count {
                    let halfRow = UnsafeBufferPointer(rebasing: halves[(row * FeaturePrint.dimension)..<((row + 1) * FeaturePrint.dimension)])
                    neighbours.append((ids[row], halfRow.map(FeaturePrint.float(fromHalfBits:))))
                }
            }
            growth.start(fromNeighbours: neighbours)
        }
        while growth.beginRound() {
            try await forEachPrintBlock(candidates: nil) { ids, halves, count in growth.visit(ids: ids, halves: halves, count: count) }
            growth.endRound()
        }
        guard let ids = growth.memberIDs else { return nil }
        var memberBinds = PostgresBindings()
        memberBinds.append(ids)
        let members = try await session.all(
            "SELECT id, path, width, height, size FROM images WHERE id = ANY($1::bigint[]) ORDER BY id", memberBinds
        ) { row -> (Int64, DuplicateMember) in
            let (id, path, width, height, size) = try row.decode((Int64, String, Int?, Int?, Int64).self)
            return (id, DuplicateMember(imageID: id, path: path, width: width, height: height, size: size, score: 1))
        }
        return growth.group(members)
    }

    /// Calls `body(ids, halves, count)` for each block of stored prints (fp16) of `candidates`
    /// (ascending ids; nil: every image) in id order, from ``PostgresPrints``, in the layout
    /// ``PrintBlocks/forEach(_:candidates:_:)`` gives on SQLite.
    func forEachPrintBlock(
        candidates: [Int64]?, _ body: (_ ids: UnsafeBufferPointer<Int64>, _ halves: UnsafeBufferPointer<UInt16>, _ count: Int) throws -> Void
    ) async throws {
        try await PostgresPrints.forEachBlock(candidates: candidates, session) { ids, prints in
            try ids.withUnsafeBufferPointer { ids in
                try prints.withMemoryRebound(to: UInt16.self) { try body(ids, $0, ids.count) }
            }
        }
    }

    /// Every pair of images (those `query` keeps) scoring at least `minimumScore`, best first, as
    /// ``SQLiteIndex/similarPairs(minimumScore:query:)``.
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
