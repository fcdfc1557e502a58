import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ClassifyGallery

extension TestClientProtocol {
    /// GET `uri` and return the response.
    func get(_ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: .get, headers: headers, body: nil)
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    /// The body as a JSON object (records an issue when it is not one).
    var object: [String: Any] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [String: Any] else {
            Issue.record("not a JSON object: \(text.prefix(200))")
            return [:]
        }
        return object
    }

    var array: [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(buffer: body))) as? [[String: Any]] ?? []
    }

    var bytes: [UInt8] { Array(buffer: body) }
}

/// Every response of the gallery carries these, whatever its status.
func expectProtectiveHeaders(_ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(response.headers[.contentSecurityPolicy] == SecurityHeadersMiddleware.contentSecurityPolicy, sourceLocation: sourceLocation)
    #expect(response.headers[.xContentTypeOptions] == "nosniff", sourceLocation: sourceLocation)
}

/// Runs `body` against the fixture's gallery in-process, removing the fixture afterwards.
func withGallery(_ body: @Sendable (GalleryFixture, any TestClientProtocol) async throws -> Void) async throws {
    let fixture = try GalleryFixture()
    defer { fixture.remove() }
    try await fixture.application().test(.router) { client in try await body(fixture, client) }
}
