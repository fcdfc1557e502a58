import ClassifyTestSupport
import Foundation
import TagIndex

// libFuzzer target over the search language: parsing, term resolution, SQL compilation and search
// on a small in-memory index. Built with `Scripts/fuzz query` (which defines FUZZING, so libFuzzer
// provides `main`); a normal build makes a tool that replays inputs and writes the seed corpus:
//
//     fuzz-query --make-seeds DIR      # queries to start from
//     fuzz-query FILE...               # run inputs through the target (reproduce a crash)
//
// Input layout: byte 0 sets the options (sort, status, calibration, facets, page), the rest is
// the query text (UTF-8; invalid bytes become U+FFFD, as they would in a Swift String).

/// The libFuzzer entry point: never returns non-zero; a bug is a crash, a sanitizer report, an
/// error of an unexpected type or a broken invariant (all trap).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQueryOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard let data, size > 0 else { return 0 }
    FuzzQuery.run(Array(UnsafeBufferPointer(start: data, count: size)))
    return 0
}

/// What one input exercises.
enum FuzzQuery {
    static let model = ModelStamp(name: "fuzz", version: "1")

    /// A small labelled library: animal > dog > {golden_retriever, poodle}, animal > cat, outdoor > beach.
    static let index: SQLiteIndex = {
        do {
            let index = try SQLiteIndex.inMemory()
            let curve = [CurvePoint(threshold: 0.2, precision: 0.6, recall: 0.9), CurvePoint(threshold: 0.7, precision: 0.95, recall: 0.5)]
            try index.replaceTaxonomy([
                LabelDefinition(identifier: "animal", displayName: "Animal"),
                LabelDefinition(identifier: "dog", displayName: "Dog", synonyms: ["puppy", "hound"], parents: ["animal"], curve: curve),
                LabelDefinition(identifier: "golden_retriever", displayName: "Golden Retriever", synonyms: ["golden"], parents: ["dog"]),
                LabelDefinition(identifier: "poodle", displayName: "Poodle", parents: ["dog"], curve: curve),
                LabelDefinition(identifier: "cat", displayName: "Cat", synonyms: ["kitty"], parents: ["animal"]),
                LabelDefinition(identifier: "outdoor", displayName: "Outdoor"),
                LabelDefinition(identifier: "beach", displayName: "Beach", synonyms: ["sea shore"], parents: ["outdoor"], curve: curve),
            ], model: model)
            let images: [(String, [(String, Double)])] = [
                ("/lib/a/golden.jpg", [("golden_retriever", 0.9), ("dog", 0.95), ("animal", 0.97), ("beach", 0.4)]),
                ("/lib/a/poodle.png", [("poodle", 0.6), ("dog", 0.7), ("animal", 0.8)]),
                ("/lib/b/cat.jpg", [("cat", 0.85), ("animal", 0.9)]),
                ("/lib/b/beach dog.JPG", [("beach", 0.8), ("outdoor", 0.9), ("dog", 0.3)]),
                ("/lib/c/blank.png", []),
            ]
            var batch: [IndexEntry] = images.enumerated().map { number, image in
                .classified(ImageClassification(
                    path: image.0, size: Int64(1000 * (number + 1)),
                    modificationTime: Date(timeIntervalSince1970: 1_700_000_000 + Double(number) * 86_400),
                    contentHash: "hash\(number)", width: 100 * (number + 1), height: 80 * (number + 1), model: model,
                    observations: image.1.map { LabelConfidence(identifier: $0.0, confidence: $0.1) }))
            }
            batch.append(.failed(ImageFailure(
                path: "/lib/c/broken.jpg", size: 10, modificationTime: Date(timeIntervalSince1970: 1_700_000_000),
                contentHash: nil, model: model, stage: "decode", reason: "truncated")))
            try index.write(batch: batch)
            return index
        } catch {
            fatalError("cannot build the fuzzing index: \(error)")
        }
    }()

    static func run(_ input: [UInt8]) {
        guard let options = input.first else { return }
        let text = String(decoding: input.dropFirst(), as: UTF8.self)
        var query: Query
        do {
            query = try Query(parsing: text)
        } catch {
            // A syntax error points inside the query and renders without trapping.
            precondition(error.offset >= 0 && error.offset <= text.count, "offset outside the query")
            precondition(!error.message.isEmpty && !error.description.isEmpty, "empty message")
            return
        }
        switch options & 3 {
        case 0: query.sort = .confidence
        case 1: query.sort = .path
        default: query.sort = .date
        }
        if options & 4 != 0 { query.facetCount = 3 }
        if options & 8 != 0 { query.calibration = options & 16 != 0 ? .precision(0.9) : .recall(0.8) }
        if options & 32 != 0 { query.limit = 2; query.page = 2 }
        do {
            let page = try index.search(query)
            precondition(page.hits.count <= query.limit, "more hits than the limit")
            precondition(page.totalCount >= page.hits.count + (query.page - 1) * query.limit || page.hits.isEmpty, "total below the hits")
            precondition(page.facets.count <= query.facetCount, "more facets than asked")
            for hit in page.hits { precondition(hit.path.hasPrefix("/lib/"), "a hit that is not an indexed image") }
        } catch is TagIndexError {
            // Unknown labels and refused queries are clear errors.
        } catch {
            fatalError("search threw an unexpected error: \(error)")
        }
    }
}

#if FUZZING
/// SwiftPM links an executable's entry point as `fuzz_query_main` (aliased to `main`).
@_cdecl("fuzz_query_main")
func fuzzingMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    runLibFuzzer(argc, argv, fuzzQueryOneInput)
}
#else
/// The replay and seed tool of a normal build.
@main
enum FuzzQueryTool {
    static func main() throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "--make-seeds":
            guard arguments.count == 2 else { usage() }
            let directory = URL(fileURLWithPath: arguments[1])
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let queries = [
                "dog", "dog cat", "dog AND cat OR beach", "-dog NOT (cat)", "retriev*:0.4", "\"golden retriever\":0.6",
                "(dog OR cat) -outdoor under:/lib/a type:jpg,png", "puppy kitty", "gold*", "\"sea shore\"",
                "after:2023-01-02 before:2024-01-01T00:00:00Z minwidth:100 minheight:200 minsize:1.5KB maxsize:2M min:0.3",
                "untagged", "failed", "is:failed dog", "dog:1", "((dog))", "dog)", "\"golden", "dog:1.5",
                "under:\"/lib/b\" beach", "t-shirt", "", "*", "dog'; DROP TABLE images; --",
            ]
            for (number, query) in queries.enumerated() {
                try Data([UInt8(number % 64)] + Array(query.utf8)).write(to: directory.appending(path: "query-\(number)"))
            }
            print("wrote \(queries.count) seeds to \(directory.path)")
        case nil, "-h", "--help":
            usage()
        default:
            try replayFuzzInputs(arguments, through: FuzzQuery.run)
        }
    }

    static func usage() -> Never {
        print("usage: fuzz-query --make-seeds DIR | FILE...")
        exit(2)
    }
}
#endif
