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
        #expect(csv.hasSuffix(",grandma,,,,"), "faces not looked for: an empty faces column")
        #expect(json["faces"] == nil && json["faceCount"] == nil)
    }

    @Test func csvAndJSONLinesCarryTheFaces() throws {
        let fixture = try ExportFixture()
        let faces = [
            IndexedFace(x: 12.34, y: 5, width: 40, height: 48.06, confidence: 0.96),
            IndexedFace(x: 300, y: 20.5, width: 64, height: 70, confidence: 0.99871),
        ]
        try fixture.classify("pair.jpg", [("grass", 0.5), (SQLiteIndex.faceLabel, 0.99871)], faces: faces)
        try fixture.classify("lawn.jpg", [("grass", 0.6)], faces: [])
        let records = try fixture.records()
        #expect(records.map(\.path) == [fixture.path("lawn.jpg"), fixture.path("pair.jpg")])
        #expect(records.map { $0.faces?.count } == [0, 2])
        let lawn = records[0], pair = records[1]
        #expect(RecordFormat.csv.line(for: lawn).hasSuffix(",0"))
        #expect(RecordFormat.csv.line(for: pair).hasSuffix(",2"))
        // The face label passes the high-precision filter without a curve: a stored face is the detector's decision.
        #expect(pair.labels.map(\.identifier) == [SQLiteIndex.faceLabel, "grass"])
        #expect(pair.labels.first?.hierarchy == [["person", "face"]])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(RecordFormat.jsonl.line(for: pair).utf8)) as? [String: Any])
        #expect(json["faceCount"] as? Int == 2)
        let boxes = try #require(json["faces"] as? [[String: Any]]).map { face in
            face.mapValues { ($0 as? NSNumber)?.doubleValue ?? .nan }
        }
        #expect(boxes == [
            ["x": 300, "y": 20.5, "width": 64, "height": 70, "confidence": 0.9987],
            ["x": 12.3, "y": 5, "width": 40, "height": 48.1, "confidence": 0.96],
        ])
        let none = try #require(try JSONSerialization.jsonObject(with: Data(RecordFormat.jsonl.line(for: lawn).utf8)) as? [String: Any])
        #expect(none["faceCount"] as? Int == 0 && (none["faces"] as? [Any])?.isEmpty == true)
    }
}
