import Testing
@testable import TagIndex

/// Named library roots: how local files map to the paths a shared index stores, and back.
@Suite struct LibraryRootTests {
    @Test func aNamedRootStoresRelativePathsUnderItsName() throws {
        let nas = try LibraryRoot(parsing: "photos=/mnt/nas/photos/")
        #expect(nas.name == "photos" && nas.localPath == "/mnt/nas/photos")
        #expect(nas.libraryPath(forLocal: "/mnt/nas/photos/2023/a b.jpg") == "photos:/2023/a b.jpg")
        #expect(nas.libraryPath(forLocal: "/mnt/nas/photosets/a.jpg") == nil)
        #expect(nas.libraryPath(forLocal: "/mnt/nas/photos") == nil)
        // Another machine mounts the share elsewhere: the same rows, its own files.
        let mac = try LibraryRoot(parsing: "photos=/Volumes/photos")
        #expect(mac.localPath(forLibrary: "photos:/2023/a b.jpg") == "/Volumes/photos/2023/a b.jpg")
        #expect(mac.localPath(forLibrary: "photosets:/2023/a.jpg") == nil)
        #expect(mac.contains(libraryPath: "photos:/x.jpg") && !mac.contains(libraryPath: "photos0/x.jpg"))
        #expect(nas.description == "photos=/mnt/nas/photos")
    }

    @Test func anUnnamedRootStoresAbsolutePaths() throws {
        let folder = try LibraryRoot(parsing: "/home/me/Pictures")
        #expect(folder.name == nil)
        #expect(folder.libraryPath(forLocal: "/home/me/Pictures/a.jpg") == "/home/me/Pictures/a.jpg")
        #expect(folder.localPath(forLibrary: "/home/me/Pictures/a.jpg") == "/home/me/Pictures/a.jpg")
        #expect(folder.libraryPath(forLocal: "/home/me/Pictures") == "/home/me/Pictures")
        let everything = try LibraryRoot(parsing: "/")
        #expect(everything.libraryPath(forLocal: "/a.jpg") == "/a.jpg")
        let roots = [try LibraryRoot(parsing: "a=/x"), try LibraryRoot(parsing: "/y")]
        #expect(roots.libraryPath(forLocal: "/y/1.jpg") == "/y/1.jpg" && roots.localPath(forLibrary: "a:/1.jpg") == "/x/1.jpg")
    }

    @Test func badNamesAreErrors() {
        for value in ["=/x", "ph:otos=/x", "-photos=/x", "photos=", String(repeating: "p", count: 65) + "=/x", "fötos=/x"] {
            #expect(throws: TagIndexError.self, "\(value)") { _ = try LibraryRoot(parsing: value) }
        }
    }

    @Test func libraryPathsAreToldFromFilePaths() {
        #expect(LibraryRoot.isLibraryPath("photos:/2023"))
        #expect(LibraryRoot.isLibraryPath("photos:"))
        #expect(!LibraryRoot.isLibraryPath("/photos:/2023"))
        #expect(!LibraryRoot.isLibraryPath("photos"))
        #expect(!LibraryRoot.isLibraryPath("c:x"))
    }
}
