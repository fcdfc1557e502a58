import CClassifyCodecs
import Testing

@testable import Classify

/// Each outcome code of the C codec layer becomes its own typed error, with the C message kept.
struct CodecFailureTests {
    static func error(_ status: cls_status, _ text: String) -> ImageDecodingError {
        var message = cls_message()
        cls_message_set(&message, text)
        return ImageDecodingError(status: status, message: message, width: 9000, height: 12000, limit: 100_000_000)
    }

    @Test func everyStatusHasItsError() {
        #expect(Self.error(CLS_TRUNCATED, "ends at row 3") == .truncated("ends at row 3"))
        #expect(Self.error(CLS_CORRUPT, "bad Huffman table") == .corrupt("bad Huffman table"))
        #expect(Self.error(CLS_TOO_LARGE, "") == .tooLarge(width: 9000, height: 12000, limit: 100_000_000))
        #expect(Self.error(CLS_UNSUPPORTED, "12-bit JPEG") == .unsupported("12-bit JPEG"))
        // A missing decoder is told apart by its code, not by the words of its message.
        let missing = Self.error(CLS_DECODER_MISSING, "HEVC decoder missing from this libheif 1.15.1")
        #expect(missing == .missingDecoder("HEVC decoder missing from this libheif 1.15.1"))
        #expect(missing.description.contains("install a libheif built with it"))
        #expect(Self.error(CLS_OUT_OF_MEMORY, "tile buffer") == .unsupported("not enough memory to decode: tile buffer"))
    }
}
