import Foundation
import HTTPTypes
import Hummingbird

/// Protects the gallery's writes (naming, merging, moving, hiding faces) from other sites: every
/// browser session gets a random token in an HttpOnly, SameSite=Strict cookie, the pages put it in
/// their forms, and a POST whose form field `csrf` is not the session's token is refused with a
/// 403 before any handler runs. A page elsewhere can make a browser post here, but can neither read
/// the cookie nor this site's pages, so it cannot know the token. Writes come only as POST.
struct CSRFMiddleware: RouterMiddleware {
    typealias Context = GalleryRequestContext

    static let cookieName = "classify_session"
    /// The form field that carries the token.
    static let fieldName = "csrf"
    /// The largest form accepted.
    static let maximumFormBytes = 16 * 1024

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let session = request.cookies[Self.cookieName]?.value.filter(\.isHexDigit)
        let known = session.map { $0.count == 64 } ?? false
        context.csrfToken = known ? session! : Secrets.token()
        var request = request
        if request.method == .post {
            guard known else { throw Self.refusal }
            let body = try await request.body.collect(upTo: Self.maximumFormBytes)
            let form = try QueryParameters(String(buffer: body))
            guard let field = form[Self.fieldName], Secrets.equal(field, context.csrfToken) else { throw Self.refusal }
            context.form = form
            request.body = .init(buffer: body)
        }
        var response = try await next(request, context)
        if !known {
            response.setCookie(Cookie(name: Self.cookieName, value: context.csrfToken, path: "/", httpOnly: true, sameSite: .strict))
        }
        return response
    }

    static let refusal = GalleryError(
        .forbidden, "This form's security token does not match this browser's session (or the session cookie is missing): reload the page and try again.")
}
