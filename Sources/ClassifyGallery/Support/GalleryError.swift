import Hummingbird
import TagIndex

/// A request the gallery cannot answer, with a sentence for the person who sent it: pages show it,
/// the API returns it as `{"error": {"message": ..., "suggestions": [...]}}` with the status.
///
/// ```swift
/// throw GalleryError(.notFound, "no indexed image has id 42")
/// ```
struct GalleryError: Error, Sendable {
    var status: HTTPResponse.Status
    var message: String
    /// "Did you mean" for an unknown label: known names close to it.
    var suggestions: [String] = []
    /// The unknown or malformed part of the query, when there is one.
    var term: String?
    /// Character offset of the problem in the query.
    var offset: Int?

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    /// The error as a visitor should see it; anything unexpected becomes a 500 without details
    /// (the details go to the log).
    static func from(_ error: any Error) -> GalleryError {
        switch error {
        case let error as GalleryError:
            return error
        case let error as QuerySyntaxError:
            var result = GalleryError(.badRequest, "\(error.message) (at character \(error.offset + 1))")
            result.offset = error.offset
            return result
        case let error as TagIndexError:
            switch error {
            case .unknownLabel(let term, let offset, let suggestions):
                var result = GalleryError(.badRequest, "No label is called '\(term)'.")
                result.suggestions = suggestions
                result.term = term
                result.offset = offset
                return result
            case .unsupportedWord(let term, let offset, let explanation):
                // A word the classifier cannot see: the vocabulary's sentence says what to try.
                var result = GalleryError(.badRequest, explanation)
                result.term = term
                result.offset = offset
                return result
            case .invalidInput(let message):
                return GalleryError(.badRequest, message)
            case .storage, .notADatabase, .newerSchema, .olderSchema:
                return GalleryError(.serviceUnavailable, "The index cannot be read right now: \(error)")
            case .anotherRunInProgress, .runFinished:
                return GalleryError(.internalServerError, "The server hit an unexpected error.")
            }
        case let error as any IndexServerError:
            // The message names the server (host:port), never a password.
            guard error.isUnavailable else { return GalleryError(.internalServerError, "The server hit an unexpected error.") }
            return GalleryError(.serviceUnavailable, "The index cannot be read right now (\(error)); try again in a moment.")
        case let error as HTTPError:
            return GalleryError(error.status, error.body ?? Self.sentence(for: error.status))
        default:
            return GalleryError(.internalServerError, "The server hit an unexpected error.")
        }
    }

    static func sentence(for status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "There is nothing at this address."
        case .methodNotAllowed: "This address only answers GET."
        default: status.reasonPhrase
        }
    }
}
