import Foundation
import TagIndex
import GRDB
import GRDBSQLite

/// A deterministic synthetic photo library for benchmarks: a taxonomy of
/// top-level categories, mid-level parents and leaves, and images whose leaves
/// follow a Zipf-like popularity, stored with their parents as Classify would.
struct SyntheticLibrary {
    let configuration: TagIndexBenchmark.Configuration

    /// A small fast PRNG (SplitMix64): deterministic across platforms.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        mutating func uniform(_ range: ClosedRange<Double>) -> Double {
            range.lowerBound + unit() * (range.upperBound - range.lowerBound)
        }
    }

    var topCount: Int { max(1, configuration.parentCount / 25) }
    var midCount: Int { max(1, configuration.parentCount - topCount) }

    func parent(ofLeaf leaf: Int) -> Int { (leaf &* 7919) % midCount }
    func parent(ofMid mid: Int) -> Int { mid % topCount }

    /// The taxonomy; every label has a 5-point precision/recall curve.
    func labels() -> [LabelDefinition] {
        func curve(_ index: Int) -> [CurvePoint] {
            let shift = Double(index % 7) * 0.03
            return [
                CurvePoint(threshold: 0.1, precision: 0.35 + shift, recall: 0.97),
                CurvePoint(threshold: 0.3, precision: 0.6 + shift, recall: 0.88),
                CurvePoint(threshold: 0.5, precision: 0.75 + shift, recall: 0.75),
                CurvePoint(threshold: 0.7, precision: 0.86 + shift, recall: 0.55),
                CurvePoint(threshold: 0.9, precision: 0.93, recall: 0.2),
            ]
        }
        var labels: [LabelDefinition] = []
        for top in 0..<topCount {
            labels.append(LabelDefinition(identifier: "category_\(top)", displayName: "Category \(top)", curve: curve(top)))
        }
        for mid in 0..<midCount {
            labels.append(LabelDefinition(
                identifier: "group_\(mid)", displayName: "Group \(mid)", synonyms: ["kind \(mid)"],
                parents: ["category_\(parent(ofMid: mid))"], curve: curve(mid)))
        }
        for leaf in 0..<configuration.leafCount {
            labels.append(LabelDefinition(
                identifier: "thing_\(leaf)", displayName: "Thing \(leaf)",
                parents: ["group_\(parent(ofLeaf: leaf))"], curve: curve(leaf)))
        }
        return labels
    }

    /// Cumulative Zipf(0.9) weights over leaves: a few leaves are very common.
    func leafWeights() -> [Double] {
        var cumulative: [Double] = []
        var sum = 0.0
        for rank in 0..<configuration.leafCount {
            sum += 1 / pow(Double(rank + 1), 0.9)
            cumulative.append(sum)
        }
        return cumulative.map { $0 / sum }
    }

    /// Writes the images, observations and packed labels straight into an
    /// empty TagIndex database (schema and taxonomy already there), the way a
    /// bulk load would: rows sorted by primary key, the rank index built last.
    func load(
        into db: Database, labelIDs: [String: Int64], modelID: Int64, phase: (String) -> Void = { _ in }
    ) throws -> (images: Int, observations: Int) {
        let topIDs = (0..<topCount).map { labelIDs["category_\($0)"]! }
        let midIDs = (0..<midCount).map { labelIDs["group_\($0)"]! }
        let leafIDs = (0..<configuration.leafCount).map { labelIDs["thing_\($0)"]! }
        let weights = leafWeights()
        var random = Random(state: configuration.seed)
        // label << 44 | image << 16 | confidence: sorts by primary key (label, image).
        var observations: [UInt64] = []
        observations.reserveCapacity(configuration.imageCount * 11)
        var counts: [Int64: Int] = [:]

        let insertImage = try db.makeStatement(sql: """
            INSERT INTO images(id, path, size, mtime, content_hash, width, height, model_id, indexed_at, top_confidence)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let insertPacked = try db.makeStatement(sql: "INSERT INTO image_labels(image_id, packed) VALUES (?, ?)")
        let now = Timestamps.microseconds(Date())
        let start = Timestamps.microseconds(Date(timeIntervalSince1970: 1_262_304_000))  // 2010-01-01
        let imageHandle = insertImage.sqliteStatement
        let packedHandle = insertPacked.sqliteStatement
        // SQLITE_TRANSIENT: SQLite copies the bound text and blob.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var own: [(label: Int64, value: Int)] = []
        own.reserveCapacity(16)
        for image in 1...configuration.imageCount {
            own.removeAll(keepingCapacity: true)
            func raise(_ label: Int64, _ value: Int, sum: Bool) {
                if let index = own.firstIndex(where: { $0.label == label }) {
                    own[index].value = sum ? min(10_000, own[index].value + value) : max(own[index].value, value)
                } else {
                    own.append((label, value))
                }
            }
            var confidence = random.uniform(0.3...0.95)
            for _ in 0..<4 {
                let draw = random.unit()
                var low = 0
                var high = weights.count - 1
                while low < high {
                    let middle = (low + high) / 2
                    if weights[middle] < draw { low = middle + 1 } else { high = middle }
                }
                let leaf = low
                let quantized = StorageFormat.quantize(confidence)
                guard quantized >= StorageFormat.floorQuantized else { break }
                raise(leafIDs[leaf], quantized, sum: false)
                // A parent's own confidence is the sum of its children's, as a softmax taxonomy gives.
                raise(midIDs[parent(ofLeaf: leaf)], quantized, sum: true)
                raise(topIDs[parent(ofMid: parent(ofLeaf: leaf))], quantized, sum: true)
                confidence *= random.uniform(0.1...0.6)
            }
            own.sort { $0.label < $1.label }
            var topConfidence = 0
            for (label, value) in own {
                observations.append(UInt64(label) << 44 | UInt64(image) << 16 | UInt64(value))
                counts[label, default: 0] += 1
                topConfidence = max(topConfidence, value)
            }
            let year = 2010 + image % 14
            let month = 1 + (image / 14) % 12
            let path = "/library/\(year)/\(month < 10 ? "0" : "")\(month)/IMG_\(image).\(image % 10 == 0 ? "png" : "jpg")"
            let hash = String(UInt64(image) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            // A million rows: bound with the C API like the observations below.
            sqlite3_reset(imageHandle)
            sqlite3_bind_int64(imageHandle, 1, Int64(image))
            sqlite3_bind_text(imageHandle, 2, path, -1, transient)
            sqlite3_bind_int64(imageHandle, 3, Int64(1_000_000 + (image * 7919) % 9_000_000))
            sqlite3_bind_int64(imageHandle, 4, start + Int64(image) * 400_000_000)
            sqlite3_bind_text(imageHandle, 5, hash, -1, transient)
            sqlite3_bind_int64(imageHandle, 6, 4032)
            sqlite3_bind_int64(imageHandle, 7, 3024)
            sqlite3_bind_int64(imageHandle, 8, modelID)
            sqlite3_bind_int64(imageHandle, 9, now)
            sqlite3_bind_int64(imageHandle, 10, Int64(topConfidence))
            try Self.step(imageHandle)
            let packed = PackedLabels.pack(own.map { .init(labelID: $0.label, best: $0.value, confidence: $0.value) })
            sqlite3_reset(packedHandle)
            sqlite3_bind_int64(packedHandle, 1, Int64(image))
            packed.withUnsafeBytes { bytes in
                _ = sqlite3_bind_blob(packedHandle, 2, bytes.baseAddress, Int32(bytes.count), transient)
            }
            try Self.step(packedHandle)
        }
        sqlite3_reset(imageHandle)
        sqlite3_reset(packedHandle)
        phase("images")
        observations.sort()
        phase("sort")
        let insertObservation = try db.makeStatement(
            sql: "INSERT INTO observations(label_id, image_id, best, confidence) VALUES (?, ?, ?, ?)")
        // Ten million rows: bound with the C API (GRDB's argument arrays cost ~1 µs a row).
        let handle = insertObservation.sqliteStatement
        for packed in observations {
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, Int64(packed >> 44))
            sqlite3_bind_int64(handle, 2, Int64((packed >> 16) & 0xFFF_FFFF))
            sqlite3_bind_int64(handle, 3, Int64(packed & 0xFFFF))
            sqlite3_bind_int64(handle, 4, Int64(packed & 0xFFFF))
            try Self.step(handle)
        }
        sqlite3_reset(handle)
        phase("observations")
        // Postings: the same sorted rows, grouped by (label, block of 4,096 images).
        let insertPosting = try db.makeStatement(
            sql: "INSERT INTO label_postings(label_id, block, entries) VALUES (?, ?, ?)")
        var first = 0
        while first < observations.count {
            let key = observations[first] >> (16 + UInt64(Postings.blockShift))
            var end = first
            var entries: [UInt32] = []
            while end < observations.count, observations[end] >> (16 + UInt64(Postings.blockShift)) == key {
                let image = Int((observations[end] >> 16) & 0xFFF_FFFF)
                entries.append(UInt32(image & Postings.blockMask) << 16 | UInt32(observations[end] & 0xFFFF))
                end += 1
            }
            let label = Int64(observations[first] >> 44)
            let block = Int((observations[first] >> 16) & 0xFFF_FFFF) >> Postings.blockShift
            try insertPosting.execute(arguments: [label, block, Postings.encode(entries)])
            first = end
        }
        phase("postings")
        let updateCount = try db.makeStatement(sql: "UPDATE labels SET image_count = ? WHERE id = ?")
        for (label, count) in counts { try updateCount.execute(arguments: [count, label]) }
        return (configuration.imageCount, observations.count)
    }

    private static func step(_ handle: OpaquePointer) throws {
        let code = sqlite3_step(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(handle))))
        }
    }
}
