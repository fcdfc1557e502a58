import ClassifyTestSupport
import Foundation
import Testing

@testable import Classify
import ClassifySupport

#if canImport(Glibc)
    import Glibc
#endif

/// The walk over hostile folders: odd names, links that loop or dangle, special files, paths
/// deeper than the system can open. Every entry is a file or a problem with a reason; the walk
/// always ends.
/// The time limit only catches a hang: its clock runs from the test's start, including time spent
/// waiting for a thread while CPU-heavy tests hold both cores (minutes on a busy 2-core machine).
@Suite("Walking hostile folders", .timeLimit(.minutes(15)))
struct ImageFileWalkerTests {
    /// A fresh folder for one test, removed afterwards (by `removeTree`, which copes with paths
    /// longer than PATH_MAX).
    final class Scratch {
        let url: URL
        var path: String { url.path }
        init() throws {
            url = FileManager.default.temporaryDirectory.appendingPathComponent("classify-walker-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }
        deinit { removeTree(atPath: url.path) }

        func write(_ name: String, _ text: String = "x") throws {
            try Data(text.utf8).write(to: url.appendingPathComponent(name))
        }

        /// Creates a file or folder whose name is raw bytes (possibly not UTF-8).
        func create(rawName: [UInt8], folder: Bool = false) {
            let full = Array(path.utf8) + [UInt8(ascii: "/")] + rawName + [0]
            full.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { name in
                    if folder {
                        #expect(mkdir(name.baseAddress!, 0o755) == 0)
                    } else {
                        let fd = open(name.baseAddress!, O_CREAT | O_WRONLY, 0o644)
                        #expect(fd >= 0)
                        close(fd)
                    }
                }
            }
        }
    }

    static func entries(_ roots: [String], includeHidden: Bool = false) -> [ImageFileWalker.Entry] {
        Array(ImageFileWalker(paths: roots, includeHidden: includeHidden))
    }

    /// Files and problems by path relative to `root` (absolute when `root` is empty), for order-free comparison.
    static func summary(_ entries: [ImageFileWalker.Entry], root: String) -> [String: String] {
        var result: [String: String] = [:]
        let relative = { (path: String) in root.isEmpty ? path : String(path.dropFirst(root.count + 1)) }
        for entry in entries {
            switch entry {
            case .file(let file):
                result[relative(file.path)] = file.isRegularFile ? "file" : "special file"
            case .problem(let path, let reason):
                result[relative(path)] = "problem: " + reason
            case .skipped(let path):
                result[relative(path)] = "skipped"
            }
        }
        return result
    }

    @Test func namesAreBytesAndEveryNameIsWalked() throws {
        let scratch = try Scratch()
        let latin1 = Array("caf".utf8) + [0xE9] + Array(".jpg".utf8)               // Latin-1 é
        let newline = Array("new\nline.PNG".utf8)
        let odd = Array("-tab\tand\\back slash.jpeg".utf8)
        let folder = Array("album-".utf8) + [0x80]
        scratch.create(rawName: latin1)
        scratch.create(rawName: newline)
        scratch.create(rawName: odd)
        scratch.create(rawName: Array("notes-".utf8) + [0xFF] + Array(".txt".utf8))   // not an image
        scratch.create(rawName: [0x2E, 0xC3, 0x28] + Array(".png".utf8))              // hidden
        scratch.create(rawName: folder, folder: true)
        scratch.create(rawName: folder + Array("/inside.jpg".utf8))
        let base = Array(scratch.path.utf8) + [UInt8(ascii: "/")]
        var found: [[UInt8]: String] = [:]
        for entry in Self.entries([scratch.path]) {
            switch entry {
            case .file(let file):
                found[RawPath.bytes(of: file.path)] = "file"
                // The path reaches the file (no UTF-8 repair on the way).
                #expect(RawPath.exists(file.path))
                #expect(ImageDecoder().readFileError(file.path) == .empty)
            case .problem(let path, let reason): found[RawPath.bytes(of: path)] = "problem: " + reason
            case .skipped(let path): found[RawPath.bytes(of: path)] = "skipped"
            }
        }
        #expect(found == [base + latin1: "file", base + newline: "file", base + odd: "file", base + folder + Array("/inside.jpg".utf8): "file"])
        let hidden = Array(ImageFileWalker(paths: [scratch.path], includeHidden: true))
        #expect(hidden.contains { entry in
            if case .file(let file) = entry { return RawPath.bytes(of: file.path) == base + [0x2E, 0xC3, 0x28] + Array(".png".utf8) }
            return false
        })
    }

    @Test func everyImageExtensionInAnyCaseAndImageSignaturesAreImages() throws {
        let scratch = try Scratch()
        for (number, ext) in ImageFileWalker.imageExtensions.sorted().enumerated() {
            try scratch.write("photo-\(number).\(number % 2 == 0 ? ext.uppercased() : ext)", "not really")
        }
        let photo = try Data(contentsOf: Bundle.module.url(forResource: "cat-chelsea", withExtension: "jpg", subdirectory: "Fixtures/photos")!)
        try photo.write(to: scratch.url.appendingPathComponent("IMG_0001"))          // no extension
        try photo.write(to: scratch.url.appendingPathComponent("cat.jpg.bak"))       // an unknown one
        // A JPEG 2000 codestream: an image the decoder cannot read, so it must fail saying so.
        try Data([0xFF, 0x4F, 0xFF, 0x51, 0, 0x2F]).write(to: scratch.url.appendingPathComponent("scan-0001"))
        try scratch.write("notes.txt", "a note")
        try scratch.write("README", "")
        try scratch.write("video.mp4", "\0\0\0\u{18}ftypmp42")
        #expect(mkfifo(scratch.path + "/pipe", 0o644) == 0)                          // never opened
        var walker = ImageFileWalker(paths: [scratch.path])
        walker.reportsSkipped = true
        let found = Self.summary(Array(walker), root: scratch.path)
        var expected: [String: String] = ["IMG_0001": "file", "cat.jpg.bak": "file", "scan-0001": "file"]
        for (number, ext) in ImageFileWalker.imageExtensions.sorted().enumerated() {
            expected["photo-\(number).\(number % 2 == 0 ? ext.uppercased() : ext)"] = "file"
        }
        for name in ["notes.txt", "README", "video.mp4", "pipe"] { expected[name] = "skipped" }
        #expect(found == expected)
        #expect(ImageFileWalker.imageExtensions.count == 27)
        // Without reportsSkipped (the default) non-images are passed over without a word.
        #expect(Self.summary(Self.entries([scratch.path]), root: scratch.path).values.contains("skipped") == false)
    }

    @Test func linksThatLoopOrDangleAreProblemsAndLoopsEnd() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try scratch.write("sub/a.jpg")
        #expect(symlink("loop.jpg", scratch.path + "/loop.jpg") == 0)
        #expect(symlink("nowhere.jpg", scratch.path + "/broken.jpg") == 0)
        #expect(symlink("nowhere", scratch.path + "/broken-folder") == 0)
        #expect(symlink("..", scratch.path + "/sub/up") == 0)            // a folder loop
        #expect(symlink("sub/a.jpg", scratch.path + "/alias.jpg") == 0)
        let found = Self.summary(Self.entries([scratch.path]), root: scratch.path)
        #expect(found == [
            "sub/a.jpg": "file",
            "alias.jpg": "file",
            "loop.jpg": "problem: symbolic link loop",
            "broken.jpg": "problem: broken symbolic link (No such file or directory)",
            "broken-folder": "problem: broken symbolic link (No such file or directory)",
        ])
    }

    @Test func specialFilesAndFoldersWithImageNames() throws {
        let scratch = try Scratch()
        #expect(mkfifo(scratch.path + "/pipe.jpg", 0o644) == 0)
        try FileManager.default.createDirectory(at: scratch.url.appendingPathComponent("folder.jpg"), withIntermediateDirectories: true)
        try scratch.write("folder.jpg/inner.png")
        try scratch.write("empty.jpg", "")
        let found = Self.summary(Self.entries([scratch.path]), root: scratch.path)
        // A FIFO is yielded (and refused by the reader, without blocking); a folder is walked.
        #expect(found == ["pipe.jpg": "special file", "folder.jpg/inner.png": "file", "empty.jpg": "file"])
        #expect(ImageDecoder().readFileError(scratch.path + "/pipe.jpg") == .notRegularFile)
        #expect(ImageDecoder().readFileError(scratch.path + "/folder.jpg") == .notRegularFile)
        #expect(ImageDecoder().readFileError(scratch.path + "/empty.jpg") == .empty)
    }

    @Test func pathsLongerThanTheSystemAllowsAreProblemsNotSilence() throws {
        let scratch = try Scratch()
        // Folders of 200-byte names, nested until the path passes PATH_MAX (4096); made with
        // mkdirat/openat since no absolute path that long can be used.
        let segment = String(repeating: "d", count: 200)
        var folders = [scratch.path]   // folders[i] holds photo.jpg and folders[i + 1]
        var descriptor = open(scratch.path, O_RDONLY | O_DIRECTORY)
        #expect(descriptor >= 0)
        while folders.last!.utf8.count <= 4400 {
            #expect(mkdirat(descriptor, segment, 0o755) == 0)
            let image = openat(descriptor, "photo.jpg", O_CREAT | O_WRONLY, 0o644)
            #expect(image >= 0)
            close(image)
            let next = openat(descriptor, segment, O_RDONLY | O_DIRECTORY)
            close(descriptor)
            descriptor = next
            folders.append(folders.last! + "/" + segment)
        }
        close(descriptor)
        // What the walk can see: children of every folder it can open (path below PATH_MAX).
        let fits = { (path: String) in path.utf8.count < Int(PATH_MAX) }
        var expected: [String: String] = [:]
        for (level, folder) in folders.dropLast().enumerated() where fits(folder) {
            for child in [folder + "/photo.jpg", folders[level + 1]] where !fits(child) {
                expected[child] = "problem: the path is too long for this system (\(child.utf8.count) bytes); move or rename its folders to index it"
            }
            if fits(folder + "/photo.jpg") { expected[folder + "/photo.jpg"] = "file" }
        }
        let found = Self.summary(Self.entries([scratch.path]), root: "")
        #expect(found == expected)
        #expect(expected.values.filter { $0 == "file" }.count > 15)
        #expect(expected.values.contains { $0.hasPrefix("problem") })
    }
}

extension ImageDecoder {
    /// The read error for `path`, or nil when it reads.
    func readFileError(_ path: String) -> ImageDecodingError? {
        do {
            _ = try readFile(at: URL(fileURLWithPath: path))
            return nil
        } catch {
            return error
        }
    }
}
