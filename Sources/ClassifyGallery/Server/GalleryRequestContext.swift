import ClassifySupport
import Foundation
import Hummingbird

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

    init(source: Source) {
        coreContext = .init(source: source)
        receivedAt = .now
    }

    var responseEncoder: GalleryJSON.ResponseWriter { GalleryJSON.ResponseWriter() }

    /// Milliseconds since the request arrived.
    var elapsedMilliseconds: Double { (ContinuousClock.now - receivedAt).milliseconds }
}

/// The JSON format of the API, shared by responses and errors.
enum GalleryJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as JSON; a path whose name is not UTF-8 is readable text in `path` with the exact
    /// bytes in base64 in `pathBytes` (`RawPath.portableJSON`), as the command line writes it.
    static func encode(_ value: some Encodable) throws -> Data {
        try RawPath.portableJSON(encoder.encode(value))
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

    /// `value` rounded to 4 decimals, as the command line prints scores and confidences.
    static func rounded(_ value: Double) -> Double { (value * 1e4).rounded() / 1e4 }

    /// A date as the command line prints it (ISO 8601, UTC).
    static func timestamp(_ date: Date) -> String { date.formatted(.iso8601) }
}

extension Duration {
    /// The duration in milliseconds.
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}
