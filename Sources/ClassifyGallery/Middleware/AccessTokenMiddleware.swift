import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore

/// Asks every request for the gallery's access token when it listens beyond this machine (names
/// of people are personal data): the URL `serve` prints carries it once (`?token=...`), which this
/// middleware turns into an HttpOnly, SameSite=Strict cookie and a redirect to the same address
/// without it; afterwards the cookie is enough. Anything else is a 401 with a sentence, never
/// the page. On loopback (no token configured) every request passes.
struct AccessTokenMiddleware: RouterMiddleware {
    typealias Context = GalleryRequestContext

    /// The cookie that carries the token after the first visit.
    static let cookieName = "classify_access"

    let token: String?

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token else { return try await next(request, context) }
        if let cookie = request.cookies[Self.cookieName]?.value, Secrets.equal(cookie, token) {
            return try await next(request, context)
        }
        if let given = try? QueryParameters(request.uri.query)["token"], Secrets.equal(given, token) {
            var response = Response(status: .seeOther, headers: [.location: Self.addressWithoutToken(request.uri)])
            response.setCookie(Cookie(name: Self.cookieName, value: token, path: "/", httpOnly: true, sameSite: .strict))
            return response
        }
        throw GalleryError(
            .unauthorized,
            "This gallery asks for its access token: open the address `classify-tool serve` printed (it ends in ?token=...).")
    }

    /// The path and query of `uri` without its `token` parameter.
    static func addressWithoutToken(_ uri: HummingbirdCore.URI) -> String {
        let kept = (uri.query ?? "").split(separator: "&").filter { !$0.hasPrefix("token=") }
        return uri.path + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
    }
}

/// Random tokens and their comparison.
enum Secrets {
    /// 32 random bytes as hex (the system's generator: getrandom on Linux).
    static func token() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%016llx", generator.next() as UInt64) }.joined()
    }

    /// Compares in time that depends on the lengths only, not on where the texts differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}
