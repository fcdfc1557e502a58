#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Removes the folder at `path` and everything in it, like `rm -rf`, without starting a process
/// (Foundation's `Process` can stall a test run that starts many) and without building absolute
/// paths, so trees deeper than PATH_MAX and folders without read permission go too.
///
/// ```swift
/// defer { removeTree(atPath: scratch.path) }
/// ```
public func removeTree(atPath path: String) {
    let folder = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
    if folder >= 0 {
        emptyFolder(folder)
        close(folder)
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// Deletes the contents of the open folder `descriptor` (which stays open).
private func emptyFolder(_ descriptor: Int32) {
    fchmod(descriptor, 0o700)   // a test may have made it unreadable or read-only
    let listing = dup(descriptor)
    guard listing >= 0, let stream = fdopendir(listing) else { return }
    defer { closedir(stream) }
    var names: [[CChar]] = []
    while let entry = readdir(stream) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }.map { CChar(bitPattern: $0) }) + [0] }
        if name == [46, 0] || name == [46, 46, 0] { continue }   // "." and ".."
        names.append(name)
    }
    for name in names {
        if unlinkat(descriptor, name, 0) == 0 { continue }
        fchmodat(descriptor, name, 0o700, 0)   // only folders are left here
        let child = openat(descriptor, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard child >= 0 else { continue }
        emptyFolder(child)
        close(child)
        unlinkat(descriptor, name, AT_REMOVEDIR)
    }
}
