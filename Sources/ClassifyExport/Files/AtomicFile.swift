import ClassifySupport
import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// Replaces a file's contents all at once: the bytes go to a temporary file beside it, are
/// flushed to disk, and the temporary file is renamed over the target. rename(2) within one
/// directory is atomic, so a reader, or a kill at any moment, sees the old file or the new one,
/// never half of one. A kill before the rename leaves the temporary file
/// (`.NAME.classify-tmp`), which the next write to that sidecar replaces.
///
/// ```swift
/// try AtomicFile.write(bytes, to: "/photos/IMG_1.xmp")
/// ```
public enum AtomicFile {
    /// The temporary file a write to `path` goes through.
    ///
    /// ```swift
    /// let temporary = AtomicFile.temporaryPath(for: "/photos/IMG_1.xmp")   // /photos/.IMG_1.xmp.classify-tmp
    /// ```
    public static func temporaryPath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent("." + url.lastPathComponent + ".classify-tmp").path
    }

    /// Writes `data` to `path` atomically; an existing file's permission bits are kept.
    ///
    /// ```swift
    /// try AtomicFile.write(Data("x".utf8), to: path)
    /// ```
    public static func write(_ data: Data, to path: String) throws(SidecarError) {
        var status = stat()
        let existingMode: mode_t? = RawPath.withCString(path) { stat($0, &status) } == 0 ? status.st_mode & 0o7777 : nil
        let mode = existingMode ?? 0o644
        let temporary = temporaryPath(for: path)
        let descriptor = RawPath.withCString(temporary) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) }
        guard descriptor >= 0 else { throw .notWritten(path: path, reason: systemError("cannot create \(temporary)")) }
        var failure: String?
        data.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = systemError("write")
                    return
                }
                offset += written
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = systemError("fsync") }
        // The umask narrowed the temporary file's mode; an existing sidecar's own bits are kept.
        if failure == nil, existingMode != nil, fchmod(descriptor, mode) != 0 { failure = systemError("chmod") }
        close(descriptor)
        if let failure {
            RawPath.withCString(temporary) { _ = unlink($0) }
            throw .notWritten(path: path, reason: failure)
        }
        CrashPoints.reach(.sidecarWritten)
        let renamed = RawPath.withCString(temporary) { from in RawPath.withCString(path) { to in rename(from, to) } }
        guard renamed == 0 else {
            let reason = systemError("rename")
            RawPath.withCString(temporary) { _ = unlink($0) }
            throw .notWritten(path: path, reason: reason)
        }
    }

    /// The whole file at `path`, or nil when there is none (paths in `RawPath` form).
    ///
    /// ```swift
    /// let bytes = try AtomicFile.read("/photos/IMG_1.xmp")
    /// ```
    public static func read(_ path: String) throws(SidecarError) -> Data? {
        let descriptor = RawPath.withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw .unreadable(path: path, reason: systemError("open"))
        }
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                // EISDIR and the like: a folder named like a sidecar.
                throw .unreadable(path: path, reason: systemError("read"))
            }
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    private static func systemError(_ operation: String) -> String {
        "\(operation): \(String(cString: strerror(errno)))"
    }
}
