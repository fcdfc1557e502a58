import TagIndex
import PostgresNIO

/// Postings fetched before a search (``PostgresPostings/load(_:size:_:)``), answering
/// ``DenseEvaluator`` from memory. It holds only the labels it was loaded with, cannot probe single
/// images, and knows neither faces nor the whole set of images: ``supports(_:)`` says which plans
/// it answers.
///
/// Usage: `let scores = try DenseEvaluator(source: postings, total: total).evaluate(plan)`
struct PrefetchedPostings: DenseTermSource {
    let size: Int
    private var groups: [Int64: [ByteBuffer]] = [:]
    private var rows: [Int64: [(image: Int, best: Int)]] = [:]

    init(size: Int) {
        self.size = size
    }

    mutating func add(_ label: Int64, group: ByteBuffer) {
        groups[label, default: []].append(group)
    }

    mutating func add(_ label: Int64, image: Int, best: Int) {
        rows[label, default: []].append((image, best))
    }

    /// Whether a plan needs nothing but the labels' postings: every NOT is an operand of an AND
    /// that also has a positive operand (the universe is never needed), and no term counts faces.
    static func supports(_ plan: MatchPlan) -> Bool {
        switch plan {
        case .labels, .nothing: true
        case .faces, .all, .not, .people: false
        case .or(let children): children.allSatisfy(supports)
        case .and(let children):
            children.contains { !$0.isNegation }
                && children.allSatisfy { child in
                    if case .not(let operand) = child { supports(operand) } else { supports(child) }
                }
        }
    }

    /// The labels a plan reads (roots of uniform terms, every label of calibrated ones).
    static func labels(of plan: MatchPlan) -> Set<Int64> {
        switch plan {
        case .labels(let match): Set(match.scans.map(\.labelID))
        case .faces(let match): [match.labelID]
        case .all, .nothing, .people: []
        case .and(let children), .or(let children): children.reduce(into: Set<Int64>()) { $0.formUnion(labels(of: $1)) }
        case .not(let child): labels(of: child)
        }
    }

    func scan(_ label: Int64, threshold: Int, into scores: inout [UInt16]) throws {
        for group in groups[label] ?? [] { Self.raise(&scores, group: group, threshold: threshold) }
        for (image, best) in rows[label] ?? [] { Self.raise(&scores, image: image, best: best, threshold: threshold) }
    }

    /// Raises the scores of a group row's images whose `best` reaches `threshold` to `best + 1`
    /// (``DenseEvaluator``'s score of a label match).
    static func raise(_ scores: inout [UInt16], group: ByteBuffer, threshold: Int) {
        scores.withUnsafeMutableBufferPointer { buffer in
            group.withUnsafeReadableBytes { row in
                PostingGroups.forEachBlock(row) { block, entries in
                    Postings.forEach(block: block, entries) { image, best in
                        guard image < buffer.count, best >= threshold else { return }
                        let score = UInt16(best + 1)
                        if score > buffer[image] { buffer[image] = score }
                    }
                }
            }
        }
    }

    /// ``raise(_:group:threshold:)`` for one observation.
    static func raise(_ scores: inout [UInt16], image: Int, best: Int, threshold: Int) {
        guard image < scores.count, best >= threshold else { return }
        scores[image] = max(scores[image], UInt16(best + 1))
    }

    /// How many images set in `bits` (a bit per image id) have `label` at or above `threshold`.
    func count(_ label: Int64, threshold: Int, in bits: [UInt64]) -> Int {
        var count = 0
        bits.withUnsafeBufferPointer { bits in
            func add(_ image: Int, _ best: Int) {
                guard best >= threshold, image >> 6 < bits.count else { return }
                count += Int((bits[image >> 6] >> UInt64(image & 63)) & 1)
            }
            for group in groups[label] ?? [] {
                group.withUnsafeReadableBytes { row in PostingGroups.forEachBlock(row) { Postings.forEach(block: $0, $1, add) } }
            }
            for (image, best) in rows[label] ?? [] { add(image, best) }
        }
        return count
    }

    func probe(_ match: LabelMatch, _ scores: inout [UInt16], keepMatches: Bool) throws -> Int? { nil }

    func keepFaces(_ counts: ClosedRange<Int>, _ scores: inout [UInt16]) throws {
        throw TagIndexError.invalidInput("prefetched postings hold no faces")
    }

    func universe() throws -> [UInt16] {
        throw TagIndexError.invalidInput("prefetched postings hold only their labels' images")
    }
}
