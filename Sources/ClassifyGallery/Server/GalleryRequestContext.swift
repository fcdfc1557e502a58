import ClassifySupport
import Foundation
import Hummingbird
import TagIndex

/// The gallery's per-request context: when the request arrived (for the query time shown on the
/// search page and the `Server-Timing` header) and a JSON encoder that writes what the command
/// line's `--format json` writes (sorted keys, unescaped slashes, ISO 8601 dates, a name that is
/// not UTF-8 with its bytes in base64 beside it: `RawPath.portableJSON`).
///
/// ```swift
/// let router = Router(context: GalleryRequestContext.self)
/// ```
struct GalleryRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// When routing started.
    let receivedAt: ContinuousClock.Instant
    /// This browser session's token for forms (see ``CSRFMiddleware``).
    var csrfToken = ""
    /// A POST's form, read and checked by ``CSRFMiddleware``.
    var form = QueryParameters.empty

    init(source: Source) {
        coreContext = .init(source: source)
        receivedAt = .now
    }

    var responseEncoder: GalleryJSON.ResponseWriter { GalleryJSON.ResponseWriter() }

    /// Milliseconds since the request arrived.
    var elapsedMilliseconds: Double { (ContinuousClock.now - receivedAt).milliseconds }
}

/// The JSON format of the API, shared by responses and errors: the command line's
/// (``JSONOutput``).
enum GalleryJSON {
    /// `value` as JSON (see ``JSONOutput/encode(_:)``).
    static func encode(_ value: some Encodable) throws -> Data {
        try JSONOutput.encode(value)
    }

    /// Writes handlers' `Encodable` results as JSON responses with ``GalleryJSON/encode(_:)``.
    struct ResponseWriter: ResponseEncoder {
        func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
            let data = try GalleryJSON.encode(value)
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(data.count)],
                body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
    }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
