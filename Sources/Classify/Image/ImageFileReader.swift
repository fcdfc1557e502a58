import ClassifySupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads an image file's bytes defensively: only regular files, never blocking on a FIFO,
/// never reading more than a limit.
enum ImageFileReader {
    static func contents(of url: URL, byteLimit: Int) throws(ImageDecodingError) -> [UInt8] {
        guard url.isFileURL else { throw .unreadable("not a file URL: \(url.absoluteString)") }
        // The path is in RawPath form (a name that is not UTF-8 carries its bytes as escapes).
        let path = url.path
        // Checking the type before open() keeps us from opening devices at all (opening some
        // has side effects); the fstat after open() closes the race of a swapped path.
        var pathInfo = stat()
        guard RawPath.withCString(path, { stat($0, &pathInfo) }) == 0 else { throw .unreadable(lastErrorText()) }
        guard isRegularFile(pathInfo) else { throw .notRegularFile }

        // O_NONBLOCK: if the path became a FIFO after the check, open() must not wait for a writer.
        let descriptor = RawPath.withCString(path) { open($0, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY) }
        guard descriptor >= 0 else { throw .unreadable(lastErrorText()) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw .unreadable(lastErrorText()) }
        guard isRegularFile(info) else { throw .notRegularFile }

        let size = Int(info.st_size)
        guard size > 0 else { throw .empty }
        guard size <= byteLimit else { throw .fileTooLarge(byteCount: size, limit: byteLimit) }
        return try readFully(descriptor, expectedSize: size)
    }

    private static func readFully(_ descriptor: Int32, expectedSize: Int) throws(ImageDecodingError) -> [UInt8] {
        var failure: Int32 = 0
        // The file may shrink while we read; keep what arrived and let the decoder judge it.
        let bytes = [UInt8](unsafeUninitializedCapacity: expectedSize) { buffer, count in
            var total = 0
            while total < expectedSize {
                let result = read(descriptor, buffer.baseAddress! + total, expectedSize - total)
                if result > 0 {
                    total += result
                } else if result == 0 {
                    break
                } else if errno != EINTR {
                    failure = errno
                    break
                }
            }
            count = total
        }
        if failure != 0 { throw .unreadable(String(cString: strerror(failure))) }
        guard !bytes.isEmpty else { throw .empty }
        return bytes
    }

    private static func isRegularFile(_ info: stat) -> Bool {
        (info.st_mode & S_IFMT) == S_IFREG
    }

    private static func lastErrorText() -> String {
        String(cString: strerror(errno))
    }
}
