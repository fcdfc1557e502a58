import Foundation

extension ImageFormat {
    /// Recognises the format from a file's first bytes (its signature), as the decoder does;
    /// nil when no format the library reads starts that way (see ``ImageSignature`` for
    /// images it recognises but cannot read).
    ///
    /// Usage: `let format = ImageFormat(leadingBytes: Array(data.prefix(64)))`
    public init?(leadingBytes: some ContiguousBytes) {
        guard case .format(let format) = ImageSignature(leadingBytes: leadingBytes) else { return nil }
        self = format
    }
}
