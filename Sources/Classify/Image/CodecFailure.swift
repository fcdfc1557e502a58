import CClassifyCodecs

extension cls_message {
    /// The NUL-terminated text the C layer wrote.
    var string: String {
        withUnsafeBytes(of: text) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}

extension ImageDecodingError {
    /// Translates a failed C codec call into the typed error. `width`/`height` are the header
    /// dimensions the codec reported, used for `.tooLarge`.
    init(status: cls_status, message: cls_message, width: UInt32, height: UInt32, limit: Int) {
        let detail = message.string
        switch status {
        case CLS_TRUNCATED:
            self = .truncated(detail)
        case CLS_TOO_LARGE:
            self = .tooLarge(width: Int(width), height: Int(height), limit: limit)
        case CLS_UNSUPPORTED:
            self = .unsupported(detail)
        case CLS_DECODER_MISSING:
            self = .missingDecoder(detail)
        case CLS_OUT_OF_MEMORY:
            self = .unsupported("not enough memory to decode: \(detail)")
        case CLS_INVALID_ARGUMENT:
            // Only reachable if this module calls the C layer incorrectly.
            assertionFailure("codec contract violated: \(detail)")
            self = .unsupported(detail)
        default:
            self = .corrupt(detail)
        }
    }
}
