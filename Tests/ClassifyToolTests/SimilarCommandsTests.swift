import ArgumentParser
import TagIndex
import Testing
@testable import classify_tool

@Suite struct SimilarCommandsTests {
    @Test func similarTakesAPathOrAnImageAndItsFilters() throws {
        let command = try SimilarCommand.parse(["/p/a.jpg", "--query", "dog", "--under", "/p/2024", "--min-score", "0.7", "--limit", "5", "--page", "2"])
        #expect(command.path == "/p/a.jpg" && command.image == nil)
        #expect(command.query == "dog" && command.under == ["/p/2024"])
        #expect(command.minScore == 0.7 && command.limit == 5 && command.page == 2)
        #expect(try SimilarCommand.parse(["--image", "/tmp/x.jpg"]).image == "/tmp/x.jpg")
        #expect(throws: (any Error).self) { try SimilarCommand.parse(["/p/a.jpg", "--image", "/tmp/x.jpg"]) }
        #expect(throws: (any Error).self) { try SimilarCommand.parse([]) }
        #expect(throws: (any Error).self) { try SimilarCommand.parse(["/p/a.jpg", "--min-score", "1.5"]) }
        #expect(throws: (any Error).self) { try SimilarCommand.parse(["/p/a.jpg", "--limit", "0"]) }
    }

    @Test func duplicatesDefaultsToTheMeasuredThreshold() throws {
        let command = try DuplicatesCommand.parse([])
        #expect(command.threshold == SQLiteIndex.defaultDuplicateThreshold)
        #expect(command.threshold == 0.8)
        #expect(try DuplicatesCommand.parse(["--threshold", "0.95", "--pairs"]).pairs)
        #expect(throws: (any Error).self) { try DuplicatesCommand.parse(["--threshold", "2"]) }
    }

    @Test func searchTakesAColor() throws {
        let command = try SearchCommand.parse(["beach", "--color", "012ACF"])
        #expect(command.color == "012ACF" && command.query == ["beach"])
        #expect(IndexedColor(hex: command.color!) == IndexedColor(red: 1, green: 42, blue: 207))
    }
}
