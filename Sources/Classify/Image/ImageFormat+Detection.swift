import Foundation

extension ImageFormat {
    /// Recognises the format from a file's first bytes (its signature), as the decoder does;
    /// nil when no format the library reads starts that way.
    ///
    /// Usage: `let format = ImageFormat(leadingBytes: Array(data.prefix(64)))`
    public init?(leadingBytes: some ContiguousBytes) {
        guard let format = leadingBytes.withUnsafeBytes({ ImageFormat(detectingIn: $0) }) else { return nil }
        self = format
    }
}
