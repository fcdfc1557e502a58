import Foundation
@testable import TagIndex

/// A fresh temporary directory per test, removed when the fixture goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("tagindex-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    var databaseURL: URL { url.appendingPathComponent("index.sqlite") }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
