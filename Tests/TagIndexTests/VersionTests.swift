import Testing
@testable import TagIndex
@Test func version() { #expect(TagIndexVersion.string == "0.1.0") }
