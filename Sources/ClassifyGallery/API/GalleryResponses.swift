import Foundation
import Hummingbird
import TagIndex

/// `GET /api/duplicates`: the groups of `classify-tool duplicates --format json` (with the
/// keeper's id and each member's links), wrapped with the threshold used and the time taken.
///
/// ```sh
/// curl 'http://127.0.0.1:8080/api/duplicates?threshold=0.9'
/// ```
struct DuplicatesResponse: ResponseEncodable, Sendable {
    var threshold: Double
    var groups: [DuplicateGroupOutput]
    var milliseconds: Double
}

/// `GET /api/suggest?q=retr`: labels to complete the last term typed, present labels first.
///
/// ```sh
/// curl 'http://127.0.0.1:8080/api/suggest?q=retr'
/// ```
struct SuggestResponse: ResponseEncodable, Sendable {
    var suggestions: [Suggestion]

    struct Suggestion: Codable, Sendable {
        var identifier: String
        var displayName: String
        /// The name (identifier, display name or synonym) that matched.
        var name: String
        var images: Int
        /// A word of the search vocabulary (`beach`) rather than a label.
        var word: Bool
    }
}
