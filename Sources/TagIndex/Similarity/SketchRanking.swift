/// The exact best scores of a similarity scan that sees most prints only as sketches (a score
/// and a bound on its error, ``PrintSketch``), asking for the few that could still matter in full.
///
/// Scores are clamped to 0...1 as ``SimilarityScore`` does and only those at or above `floor`
/// count. An image whose interval lies wholly at or above `floor` surely counts; its lower end
/// competes for the `capacity` best lower ends, whose smallest is the line `line`. An image whose
/// upper end falls below `line` cannot be on the page: `capacity` images surely score above it.
/// So the exact scores needed are those of the images whose upper end reaches `line`, and of
/// those whose interval straddles `floor` (they may or may not count); with them, ``finish(exact:)``
/// gives the same page and total as scoring every print exactly, ties broken by id as there.
///
/// Usage:
/// ```swift
/// var ranking = SketchRanking(capacity: 20, floor: 0)
/// ranking.add(id: 7, score: 0.61, bound: 0.02)      // from a sketch
/// ranking.add(id: 9, exactScore: 0.58)              // a print read in full anyway
/// let needed = ranking.idsNeedingExactScores()      // read these prints, score them exactly
/// let (best, total) = ranking.finish(exact: scores) // scores: [id: exact score]
/// ```
package struct SketchRanking {
    let capacity: Int
    let floor: Float
    /// The best lower ends of images that surely count.
    private var sure: TopScores
    /// Images that surely count.
    private var sureCount = 0
    /// Images that may still be on the page or may count: their upper end, and whether they
    /// straddle `floor`.
    private var open: [(id: Int64, upper: Float, straddles: Bool)] = []
    /// Exact scores known already (prints read in full), at or above `floor`.
    private var known: [Int64: Float] = [:]

    package init(capacity: Int, floor: Float) {
        self.capacity = capacity
        self.floor = floor
        sure = TopScores(capacity: capacity)
    }

    /// The smallest score the page can still need: the lowest of the `capacity` best lower ends.
    private var line: Float {
        sure.heap.count == capacity ? sure.heap[0].score : -.infinity
    }

    /// An image seen as a sketch: its sketch score and the bound on that score's error.
    package mutating func add(id: Int64, score: Float, bound: Float) {
        let lower = min(1, max(0, score - bound)), upper = min(1, max(0, score + bound))
        guard upper >= floor else { return }
        let straddles = lower < floor
        if !straddles {
            sureCount += 1
            sure.insert(score: lower, id: id)
        }
        if straddles || upper >= line { open.append((id, upper, straddles)) }
    }

    /// An image whose exact score is known.
    package mutating func add(id: Int64, exactScore: Float) {
        guard exactScore >= floor else { return }
        sureCount += 1
        sure.insert(score: exactScore, id: id)
        known[id] = exactScore
    }

    /// The images whose exact scores ``finish(exact:)`` needs, ascending.
    package func idsNeedingExactScores() -> [Int64] {
        let line = self.line
        return open.filter { $0.straddles || $0.upper >= line }.map(\.id).sorted()
    }

    /// The page's best (score, id) pairs and how many images score at or above `floor`, from the
    /// exact scores of ``idsNeedingExactScores()`` (clamped as ``SimilarityScore`` does).
    package func finish(exact: [Int64: Float]) -> (best: TopScores, total: Int) {
        var best = TopScores(capacity: capacity)
        var total = sureCount
        for (id, score) in known { best.insert(score: score, id: id) }
        let line = self.line
        for image in open where image.straddles || image.upper >= line {
            guard let score = exact[image.id], score >= floor else { continue }
            if image.straddles { total += 1 }
            best.insert(score: score, id: image.id)
        }
        return (best, total)
    }
}
