import ClassifySupport
import HTTPTypes
import Hummingbird

/// Sets the protective headers on every response (errors and 304s included), with the time the
/// server took in `Server-Timing`, and refuses requests
/// whose `Host` is not this server's own name when it listens on loopback only, so a web page
/// elsewhere cannot reach it through a DNS name that resolves to 127.0.0.1 (DNS rebinding).
///
/// The Content-Security-Policy allows only this origin's own scripts, styles and images, no
/// inline script or style, no frames, no plugins, forms posting only here.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = GalleryRequestContext

    static let contentSecurityPolicy = [
        "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self'", "connect-src 'self'",
        "font-src 'self'", "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
    ].joined(separator: "; ")

    let hosts: HostCheck

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        if !hosts.permits(request.head.authority) {
            response = try ErrorResponder.response(
                for: GalleryError(.misdirectedRequest, "This gallery only answers requests addressed to its own address (\(hosts.example))."),
                request: request)
        } else {
            response = try await next(request, context)
        }
        Self.secure(&response.headers)
        // How long the server took, for the browser's network panel and for load tests.
        if let timing = HTTPField.Name("Server-Timing") {
            response.headers[timing] = String(format: "app;dur=%.2f", context.elapsedMilliseconds)
        }
        return response
    }

    static func secure(_ headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        if let referrer = HTTPField.Name("Referrer-Policy") { headers[referrer] = "no-referrer" }
        if let frameOptions = HTTPField.Name("X-Frame-Options") { headers[frameOptions] = "DENY" }
        if let resourcePolicy = HTTPField.Name("Cross-Origin-Resource-Policy") { headers[resourcePolicy] = "same-origin" }
    }
}

/// The `Host` values a loopback-only server answers: its address or `localhost`, with its port.
/// Until ``allow(_:)`` is called (or for a server on another address) every host is accepted.
final class HostCheck: Sendable {
    private let allowed = Locked<Set<String>?>(nil)

    func allow(_ hosts: Set<String>) { allowed.withLock { $0 = Set(hosts.map { $0.lowercased() }) } }

    func permits(_ authority: String?) -> Bool {
        allowed.withLock { allowed in allowed.map { $0.contains((authority ?? "").lowercased()) } ?? true }
    }

    /// One accepted value, for the error message.
    var example: String { allowed.withLock { $0?.sorted().first } ?? "its own address" }

    static func loopbackNames(host: String, port: Int) -> Set<String> {
        ["\(host):\(port)", "localhost:\(port)", "127.0.0.1:\(port)", "[::1]:\(port)"]
    }
}
