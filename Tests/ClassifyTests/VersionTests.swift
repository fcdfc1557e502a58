import Testing
@testable import Classify
@Test func version() { #expect(ClassifyVersion.string == "0.1.0") }
