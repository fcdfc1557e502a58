/// Where ``DenseEvaluator`` reads the images of its terms.
///
/// A source fills score arrays indexed by image id (see ``DenseEvaluator`` for the values).
/// SQLite reads its `label_postings` as the evaluator asks (``SQLitePostings``); PostgreSQL's
/// postings are fetched in one statement before evaluation (``PrefetchedPostings``), so its
/// source answers from memory and cannot probe single images.
///
/// Usage: `let evaluator = DenseEvaluator(source: SQLitePostings(db: db), total: total)`
package protocol DenseTermSource {
    /// One more than the largest image id: the length of every score array.
    var size: Int { get }

    /// Raises `scores[image]` to `best + 1` for each image whose `best` for `label` reaches `threshold`.
    func scan(_ label: Int64, threshold: Int, into scores: inout [UInt16]) throws

    /// Looks each current match up in the term; keeps (AND) or drops (AND NOT) the images the term
    /// matches and returns the matches left, or returns nil (changing nothing) when this source
    /// cannot look up single images, so the term is scanned instead.
    func probe(_ match: LabelMatch, _ scores: inout [UInt16], keepMatches: Bool) throws -> Int?

    /// Clears the images whose number of stored faces is outside `counts` (or not looked for).
    func keepFaces(_ counts: ClosedRange<Int>, _ scores: inout [UInt16]) throws

    /// Every indexed image (not failed), without a score.
    func universe() throws -> [UInt16]
}
