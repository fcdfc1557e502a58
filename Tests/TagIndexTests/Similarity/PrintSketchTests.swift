import CClassifyKernels
import Foundation
import Testing
@testable import TagIndex

/// Print sketches (the 4-bit first pass of PostgreSQL's similar images): the kernel's vector path
/// against its scalar reference, the error bound against exact arithmetic, and the ranking
/// against a scan of every print in full.
@Suite struct PrintSketchTests {
    /// Unit-length prints stored as fp16, of three kinds: sparse non-negative (pooled ReLU
    /// features), signed, and constant.
    static func prints(_ count: Int, seed: UInt64) -> [[UInt16]] {
        var random = SyntheticPrints(state: seed)
        return (0..<count).map { row in
            let vector: [Float]
            switch row % 7 {
            case 5: vector = (0..<FeaturePrint.dimension).map { _ in random.unit() - 0.4 }
            case 6: vector = [Float](repeating: 1, count: FeaturePrint.dimension)
            case 3, 4:  // half zeros and a heavy tail, as EfficientNet's pooled features have
                vector = (0..<FeaturePrint.dimension).map { _ in
                    let u = random.unit()
                    return u < 0.5 ? 0 : pow(-log(max(1e-6, random.unit())), 2)
                }
            default: vector = random.photo()
            }
            return try! FeaturePrint.encode(vector).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
        }
    }

    static func sketches(of prints: [[UInt16]]) -> [UInt8] {
        var sketches = [UInt8](repeating: 0, count: prints.count * PrintSketch.byteCount)
        prints.joined().map { $0 }.withUnsafeBufferPointer { halves in
            sketches.withUnsafeMutableBytes { PrintSketch.encode(halves, count: prints.count, into: $0) }
        }
        return sketches
    }

    static func probe(seed: UInt64) -> [Float] {
        var random = SyntheticPrints(state: seed)
        let vector = random.photo().map { $0 + random.unit() * 0.1 }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return vector.map { $0 / norm }
    }

    /// The header's float at `offset`.
    static func float(_ sketch: ArraySlice<UInt8>, _ offset: Int) -> Float {
        Float(bitPattern: (0..<4).reduce(UInt32(0)) { $0 | UInt32(sketch[sketch.startIndex + offset + $1]) << (8 * $1) })
    }

    /// The sketch's value k, read back the way the format describes it.
    static func value(_ sketch: ArraySlice<UInt8>, _ k: Int) -> Double {
        let base = sketch.startIndex
        func float(_ offset: Int) -> Float { Self.float(sketch, offset) }
        let mode = sketch[base + 12]
        let byte = sketch[base + PrintSketch.headerBytes + (k / 32) * 16 + k % 16]
        let code = Int(k % 32 < 16 ? byte & 15 : byte >> 4)
        if mode & 2 == 2 && code == 0 { return 0 }
        let n = Double(mode & 2 == 2 ? code - 1 : code)
        return Double(float(0)) + Double(float(4)) * (mode & 1 == 1 ? n * n : n)
    }

    @Test(arguments: [1, 3, 17, 65] as [Int], [11, 12] as [UInt64])
    func vectorKernelAgreesWithTheScalarReference(count: Int, seed: UInt64) {
        let sketches = Self.sketches(of: Self.prints(count, seed: seed))
        let probe = Self.probe(seed: seed + 100)
        var results: [[Float]] = []
        // The vector path (the best this CPU has) and the scalar one, on this thread only.
        for level in [Int32(CLS_LEVEL_AVX512), Int32(CLS_LEVEL_PORTABLE)] {
            let outer = cls_kernels_set_thread_level(level)
            defer { cls_kernels_set_thread_level(outer) }
            var out = [Float](repeating: .nan, count: count)
            sketches.withUnsafeBytes { raw in
                PrintSketch.dot(probe: probe, sketches: raw.baseAddress!, count: count, into: &out)
            }
            results.append(out)
        }
        for row in 0..<count {
            let sketch = sketches[(row * PrintSketch.byteCount)..<((row + 1) * PrintSketch.byteCount)]
            let expected = (0..<FeaturePrint.dimension).reduce(0.0) { $0 + Double(probe[$1]) * Self.value(sketch, $1) }
            for (path, out) in zip(["vector", "scalar"], results) {
                #expect(abs(Double(out[row]) - expected) < 1e-5, "\(path) row \(row)")
            }
        }
    }

    @Test(arguments: [21, 22, 23] as [UInt64])
    func theBoundHoldsAndIsTight(seed: UInt64) {
        let prints = Self.prints(70, seed: seed)
        let sketches = Self.sketches(of: prints)
        let probe = Self.probe(seed: seed + 7)
        var approximate = [Float](repeating: 0, count: prints.count)
        sketches.withUnsafeBytes { PrintSketch.dot(probe: probe, sketches: $0.baseAddress!, count: prints.count, into: &approximate) }
        var modes = Set<UInt8>()
        for (row, print) in prints.enumerated() {
            let exact = zip(probe, print).reduce(0.0) { $0 + Double($1.0) * Double(FeaturePrint.float(fromHalfBits: $1.1)) }
            let bound = sketches.withUnsafeBytes { PrintSketch.bound(of: $0.baseAddress! + row * PrintSketch.byteCount) }
            #expect(abs(exact - Double(approximate[row])) <= Double(bound), "row \(row)")
            // The stored error is the sketch's own distance from the print, not a loose guess.
            let sketch = sketches[(row * PrintSketch.byteCount)..<((row + 1) * PrintSketch.byteCount)]
            let distance = (0..<FeaturePrint.dimension).reduce(0.0) {
                let difference = Double(FeaturePrint.float(fromHalfBits: print[$1])) - Self.value(sketch, $1)
                return $0 + difference * difference
            }.squareRoot()
            let stored = Double(Self.float(sketch, 8))
            #expect(stored >= distance && stored <= distance * 1.0001 + 1e-12, "row \(row)")
            #expect(row % 7 != 6 || distance == 0, "a constant print is sketched exactly")
            modes.insert(sketch[sketch.startIndex + 12])
        }
        #expect(modes.count >= 3, "the quantizers chosen: \(modes.sorted())")
    }

    /// The ranking from sketches plus the prints it asks for equals the ranking of every print
    /// scored in full: pages, totals and ties, with floors below, inside and above the scores.
    @Test(arguments: [0, 0.3, 0.55, 0.9] as [Float])
    func rankingFromSketchesEqualsTheFullScan(floor: Float) {
        // Families of near copies, so some scores are close together, and exact duplicates (ties).
        var random = SyntheticPrints(state: 31)
        var vectors: [[Float]] = []
        for family in 0..<60 {
            let base = random.photo()
            vectors.append(base)
            for _ in 0..<(family % 4) { vectors.append(random.variant(of: base, amount: 0.05)) }
            if family % 10 == 0 { vectors.append(base) }
        }
        let prints = vectors.map { try! FeaturePrint.encode($0).withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) } }
        let sketches = Self.sketches(of: prints)
        let probe = vectors[4].map { $0 / vectors[4].reduce(0) { $0 + $1 * $1 }.squareRoot() }
        var exactScores = [Float](repeating: 0, count: prints.count)
        prints.joined().map { $0 }.withUnsafeBufferPointer {
            PrintBlocks.dot(queries: probe, queryCount: 1, rows: $0.baseAddress!, count: prints.count, into: &exactScores)
        }
        exactScores = exactScores.map { min(1, max(0, $0)) }
        var approximate = [Float](repeating: 0, count: prints.count)
        sketches.withUnsafeBytes { PrintSketch.dot(probe: probe, sketches: $0.baseAddress!, count: prints.count, into: &approximate) }
        for capacity in [1, 5, 20, 500] {
            var full = TopScores(capacity: capacity)
            var fullTotal = 0
            for (row, score) in exactScores.enumerated() where score >= floor {
                fullTotal += 1
                full.insert(score: score, id: Int64(row + 1))
            }
            var ranking = SketchRanking(capacity: capacity, floor: floor)
            for row in exactScores.indices {
                if row % 9 == 0 {
                    ranking.add(id: Int64(row + 1), exactScore: exactScores[row])  // a changed block's print
                } else {
                    let bound = sketches.withUnsafeBytes { PrintSketch.bound(of: $0.baseAddress! + row * PrintSketch.byteCount) }
                    ranking.add(id: Int64(row + 1), score: approximate[row], bound: bound)
                }
            }
            let needed = ranking.idsNeedingExactScores()
            var exact: [Int64: Float] = [:]
            for id in needed { exact[id] = exactScores[Int(id) - 1] }
            let (best, total) = ranking.finish(exact: exact)
            #expect(total == fullTotal, "capacity \(capacity)")
            #expect(best.sortedDescending().map(\.id) == full.sortedDescending().map(\.id), "capacity \(capacity)")
            #expect(best.sortedDescending().map(\.score) == full.sortedDescending().map(\.score), "capacity \(capacity)")
            if capacity == 5 && floor == 0 {
                #expect(needed.count < prints.count / 2, "the sketches spare most prints: \(needed.count) of \(prints.count) read")
            }
        }
    }
}
