import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The advisory lock that lets one index run write a database at a time.
///
/// For a file database it is an exclusive `flock` on `<database>.lock`: the
/// kernel releases it when the process dies (even by kill -9), so a crashed run
/// never blocks the next one. For an in-memory database it is a flag.
package final class WriterLock: @unchecked Sendable {
    private let lockPath: String?
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var held = false

    init(lockPath: String?) { self.lockPath = lockPath }

    deinit { release() }

    /// Takes the lock or throws ``TagIndexError/anotherRunInProgress(path:)`` at once.
    func acquire(databasePath: String) throws {
        lock.lock()
        defer { lock.unlock() }
        guard !held else { throw TagIndexError.anotherRunInProgress(path: databasePath) }
        if let lockPath {
            let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw TagIndexError.invalidInput(
                    "cannot create the lock file \(lockPath): \(String(cString: strerror(errno)))")
            }
            guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                close(fd)
                throw TagIndexError.anotherRunInProgress(path: databasePath)
            }
            descriptor = fd
        }
        held = true
    }

    func release() {
        lock.lock()
        defer { lock.unlock() }
        guard held else { return }
        if descriptor >= 0 {
            flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
        held = false
    }
}
