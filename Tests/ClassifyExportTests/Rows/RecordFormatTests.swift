import ClassifyExport
import Foundation
import TagIndex
import Testing

@Suite struct RecordFormatTests {
    @Test func csvAndJSONLinesCarryTheKeptLabels() throws {
        let fixture = try ExportFixture()
        try fixture.classify("x, \"quoted\".jpg", [("golden_retriever", 0.8), ("dog", 0.85), ("grass", 0.5)])
        _ = try fixture.index.addLabel("grandma", to: [fixture.path("x, \"quoted\".jpg")])
        let record = try #require(try fixture.records().first)
        let csv = RecordFormat.csv.line(for: record)
        #expect(csv.hasPrefix("\"" + fixture.path("x, \"\"quoted\"\".jpg") + "\",1234,640,480,2023-11-14T22:13:20Z,"))
        #expect(csv.contains(",grandma; golden retriever; grass,1.0000; 0.8000; 0.5000,grandma,,,"))
        #expect(RecordFormat.csv.header?.components(separatedBy: ",").count == csv.components(separatedBy: ",").count - 1)  // one comma in the path
        let json = try #require(try JSONSerialization.jsonObject(with: Data(RecordFormat.jsonl.line(for: record).utf8)) as? [String: Any])
        #expect(json["path"] as? String == fixture.path("x, \"quoted\".jpg"))
        let labels = try #require(json["labels"] as? [[String: Any]])
        #expect(labels.map { $0["name"] as? String } == ["grandma", "golden retriever", "grass"])
        #expect(labels.first?["userLabel"] as? Bool == true)
        #expect(labels[1]["paths"] as? [String] == ["animal|dog|golden retriever"])
        #expect(!RecordFormat.jsonl.line(for: record).contains("\n"))
    }
}
