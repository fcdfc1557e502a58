import Hummingbird
import Logging

/// Turns every error a route throws into an answer for people: a JSON error under `/api/`, an
/// HTML page elsewhere. 4xx carry the sentence saying what was wrong; anything unexpected is a
/// plain 500 whose details go to the log only, never a stack trace to the browser.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = GalleryRequestContext
    let pages: PageRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let problem = GalleryError.from(error)
            if problem.status.code >= 500 {
                context.logger.error("\(request.method) \(request.uri.path): \(String(reflecting: error))")
            }
            return try ErrorResponder.response(for: problem, request: request, pages: pages)
        }
    }
}

/// The response for a ``GalleryError``.
enum ErrorResponder {
    struct Body: Encodable {
        struct Detail: Encodable {
            var message: String
            var suggestions: [String]?
            var offset: Int?
        }

        var error: Detail
    }

    static func response(for problem: GalleryError, request: Request, pages: PageRenderer? = nil) throws -> Response {
        if request.uri.path.hasPrefix("/api/") || pages == nil {
            let body = Body(error: .init(
                message: problem.message, suggestions: problem.suggestions.isEmpty ? nil : problem.suggestions, offset: problem.offset))
            let data = try GalleryJSON.encode(body)
            return Response(
                status: problem.status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        return pages!.response("error", ErrorView(problem), status: problem.status)
    }
}

/// What the error page shows.
struct ErrorView: PageView {
    var title: String
    let section = ""
    var heading: String
    var message: String

    init(_ problem: GalleryError) {
        title = problem.status.reasonPhrase
        heading = problem.status == .notFound ? "Not found" : problem.status.code >= 500 ? "Something went wrong" : "That did not work"
        message = problem.message
    }
}
