import ClassifyTestSupport
import CClassifyCodecs
import CClassifyTestEncoders
import Foundation
import GRDB
import Testing

#if canImport(Glibc)
    import Glibc
#endif

extension Reliability {
    /// One folder holding every kind of bad input the issue lists, indexed in one run of the
    /// built tool: each file is classified correctly or is a failed row naming the stage and the
    /// reason in `search --failed`; the run finishes with exit status 2.
    ///
    /// When the tests run as root the tool runs as `nobody` (through setpriv), so unreadable
    /// files and folders are really unreadable.
    @Suite struct HostileFolder {
        let scratch: ReliabilityScratch
        let root: URL
        /// path -> "stage: reason" of every file that must fail.
        var failures: [String: String] = [:]
        /// path -> (width, height) of every file that must be classified.
        var classified: [String: (Int, Int)] = [:]
        /// Pairs whose stored feature prints and labels must be identical: (file, reference).
        var sameAs: [(String, String)] = []
        /// Files that must get the same top label as the original photo.
        var likeTheCat: [String] = []
        /// Failures found by the walk (not by reading), written again by every run.
        var walkProblems: Set<String> = []
        let unprivileged = ReliabilityProcess.canRunUnprivileged

        static let notAnImage = "decode: The data is not an image in a format this tool reads (JPEG, PNG, HEIC, AVIF, WebP, TIFF, GIF, camera raw); convert it to one of those first."
        static let truncatedJPEG = "decode: The image data ends too early (Premature end of JPEG file); the file was probably cut off while downloading or copying."

        init() throws {
            scratch = try ReliabilityScratch("hostile")
            root = try scratch.folder("hostile")
            try makeFailures(try scratch.folder("hostile/failures"))
            try makeGoodFiles(try scratch.folder("hostile/good"))
            try makeOrientations(try scratch.folder("hostile/orientation"))
            try makeDeepPaths(try scratch.folder("hostile/deep"))
        }

        // MARK: The folder

        mutating func makeFailures(_ folder: URL) throws {
            func file(_ name: String, _ bytes: [UInt8], _ outcome: String) throws {
                try Data(bytes).write(to: folder.appending(path: name))
                failures[folder.appending(path: name).path] = outcome
            }
            try file("empty.jpg", [], "read: The file is empty (0 bytes); it was probably not written or copied completely.")
            try file("random.jpg", [0] + ReliabilityImages.noise(count: 5000, seed: 1), Self.notAnImage)
            try file("random.png", [0] + ReliabilityImages.noise(count: 5000, seed: 2), Self.notAnImage)
            try file("text.jpg", Array("Dear diary, today I renamed a letter to .jpg\n".utf8), Self.notAnImage)

            let fifo = folder.appending(path: "fifo.jpg").path
            #expect(mkfifo(fifo, 0o666) == 0)
            failures[fifo] = "read: The path is not a regular file (it is a directory, pipe, socket or device); pass the path of an image file."
            #expect(symlink("nowhere.jpg", folder.appending(path: "dangling.jpg").path) == 0)
            failures[folder.appending(path: "dangling.jpg").path] = "read: broken symbolic link (No such file or directory)"
            walkProblems.insert(folder.appending(path: "dangling.jpg").path)
            #expect(symlink("loop.jpg", folder.appending(path: "loop.jpg").path) == 0)
            failures[folder.appending(path: "loop.jpg").path] = "read: symbolic link loop"
            walkProblems.insert(folder.appending(path: "loop.jpg").path)

            if unprivileged {
                let secret = folder.appending(path: "unreadable.jpg")
                try ReliabilityFixtures.photoCopy(100, to: secret)
                chmod(secret.path, 0)
                failures[secret.path] = "read: The file could not be read (Permission denied); check that it exists and that you may read it."
                let closed = folder.appending(path: "closed")
                try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: true)
                try ReliabilityFixtures.photoCopy(101, to: closed.appending(path: "inside.jpg"))
                chmod(closed.path, 0)
                failures[closed.path] = "read: folder cannot be read (Permission denied)"
                walkProblems.insert(closed.path)
            } else {
                print("note: running as root without setpriv; the unreadable file and folder cases are left out")
            }

            // JPEGs cut in the header, at the start of the first scan and in the middle of it.
            let photo = [UInt8](try Data(contentsOf: ReliabilityFixtures.photos.appending(path: "rocket.jpg")))
            let scan = ReliabilityImages.scanDataStart(in: photo)
            try file("cut-in-header.jpg", Array(photo[0..<30]), Self.truncatedJPEG)
            try file("cut-at-first-scan.jpg", Array(photo[0..<scan + 4]), Self.truncatedJPEG)
            try file("cut-mid-scan.jpg", Array(photo[0..<(scan + photo.count) / 2]), Self.truncatedJPEG)
            // Runs of stuffed 0xFF bytes: all-ones bits, which no Huffman table may hold as a code.
            var huffman = photo
            let middle = (scan + photo.count) / 2 & ~1
            for offset in stride(from: middle, to: middle + 64, by: 2) { huffman[offset] = 0xFF; huffman[offset + 1] = 0x00 }
            try file("bad-huffman.jpg", huffman, "decode: The image data is damaged (Corrupt JPEG data: bad Huffman code); re-export or re-download the file.")
            var huge = photo
            let sof = ReliabilityImages.markerOffset(0xC0, in: huge)!
            huge.replaceSubrange(sof + 5..<sof + 9, with: [0xFF, 0xFF, 0xFF, 0xFF])
            try file("header-65535x65535.jpg", huge, "decode: The image is 65535x65535 pixels, more than the limit of 100000000 pixels; downscale it or raise ImageDecoder.maximumPixelCount.")

            // PNGs: a bad IDAT checksum, data cut inside IDAT, a header claiming 100,000 x 100,000.
            let small = ReliabilityImages.Picture(pixels: ReliabilityImages.noise(count: 48 * 32 * 3, seed: 7), width: 48, height: 32)
            let png = try ReliabilityImages.png(small)
            let idat = TestPNG.chunkOffset("IDAT", in: png)!
            let idatLength = png[idat..<idat + 4].reduce(0) { $0 << 8 | Int($1) }
            var badCRC = png
            badCRC[idat + 8 + idatLength] ^= 0x55
            try file("bad-crc.png", badCRC, "decode: The image data is damaged (IDAT: CRC error); re-export or re-download the file.")
            try file("cut-in-idat.png", Array(png[0..<idat + 8 + idatLength / 2]), "decode: The image data ends too early (read beyond end of data); the file was probably cut off while downloading or copying.")
            var hugePNG = png
            hugePNG.replaceSubrange(16..<24, with: [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0])
            TestPNG.fixCRC(ofChunkAt: 8, in: &hugePNG)
            try file("header-100000x100000.png", hugePNG, "decode: The image is 100000x100000 pixels, more than the limit of 100000000 pixels; downscale it or raise ImageDecoder.maximumPixelCount.")

            // A name that is not UTF-8 (Latin-1 "café.jpg", here empty) is read like any other and
            // fails for its content; the JSON shows it readably (U+FFFD), its bytes in pathBytes.
            // A non-image file with such a name is skipped like any other non-image.
            for (raw, failsAs) in [(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8), "caf\u{FFFD}.jpg"), (Array("notes-".utf8) + [0xFF] + Array(".txt".utf8), nil)] {
                let full = Array(folder.path.utf8) + [UInt8(ascii: "/")] + raw + [0]
                let fd = full.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) } }
                #expect(fd >= 0)
                close(fd)
                if let failsAs {
                    failures[folder.path + "/" + failsAs] = "read: The file is empty (0 bytes); it was probably not written or copied completely."
                }
            }
        }

        mutating func makeGoodFiles(_ folder: URL) throws {
            let cat = try ReliabilityImages.cat()
            #expect((cat.width, cat.height) == (385, 256))
            func file(_ name: String, _ bytes: [UInt8], like: Bool = true) throws {
                let url = folder.appending(path: name)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(bytes).write(to: url)
                classified[url.path] = (385, 256)
                if like { likeTheCat.append(url.path) }
            }
            try ReliabilityFixtures.photoCopy(0, to: folder.appending(path: "cat.jpg"))
            classified[folder.appending(path: "cat.jpg").path] = (385, 256)
            try file("progressive.jpg", ReliabilityImages.jpeg(cat, scans: CLS_TEST_JPEG_PROGRESSIVE))
            let ink = ReliabilityImages.invertedInk(cat)
            try file("cmyk.jpg", ReliabilityImages.jpeg(ink, width: cat.width, height: cat.height, components: 4, ink: CLS_TEST_JPEG_INK_ADOBE_CMYK))
            try file("ycck.jpg", ReliabilityImages.jpeg(ink, width: cat.width, height: cat.height, components: 4, ink: CLS_TEST_JPEG_INK_ADOBE_YCCK))
            try file("sixteen-bit.png", ReliabilityImages.png(cat.pixels.map { UInt16($0) * 257 }, width: cat.width, height: cat.height, color: CLS_TEST_PNG_RGB, bitDepth: 16))
            try file("gray.png", ReliabilityImages.png(ReliabilityImages.gray(cat), width: cat.width, height: cat.height, color: CLS_TEST_PNG_GRAY), like: false)
            let paletted = ReliabilityImages.paletted(cat)
            try file("palette-with-trns.png", ReliabilityImages.png(paletted.indices, width: cat.width, height: cat.height, color: CLS_TEST_PNG_PALETTE, palette: paletted.palette, paletteAlpha: paletted.alpha), like: false)
            try file("interlaced.png", ReliabilityImages.png(cat, interlaced: true))
            sameAs.append((folder.appending(path: "interlaced.png").path, root.appending(path: "orientation/upright-reference.png").path))
            // A folder named like an image is walked, not read.
            try ReliabilityFixtures.photoCopy(3, to: try scratch.folder("hostile/good/album.jpg").appending(path: "inside.jpg"))
            classified[folder.appending(path: "album.jpg/inside.jpg").path] = (385, 256)
            for (number, name) in ["with space.jpg", "new\nline.jpg", "été ✓ 猫.jpg", "-starts-with-dash.jpg"].enumerated() {
                try ReliabilityFixtures.photoCopy(6 + 3 * number, to: folder.appending(path: name))
                classified[folder.appending(path: name).path] = (385, 256)
            }
        }

        /// EXIF orientation 1-8 on a non-square photo, checked to the pixel: each file must give
        /// exactly the feature print of a plain PNG holding the upright picture.
        mutating func makeOrientations(_ folder: URL) throws {
            let cat = try ReliabilityImages.cat()
            let upright = folder.appending(path: "upright-reference.png").path
            try Data(ReliabilityImages.png(cat)).write(to: URL(fileURLWithPath: upright))
            classified[upright] = (385, 256)
            for orientation in 1...8 {
                let stored = ReliabilityImages.stored(cat, orientation: orientation)
                #expect((stored.width, stored.height) == (orientation >= 5 ? (256, 385) : (385, 256)))
                // JPEG (APP1): lossy, so the reference is this JPEG's own pixels, decoded without
                // the EXIF block and turned upright by the test's transform.
                let plain = try ReliabilityImages.jpeg(stored, quality: 90)
                let tagged = try ReliabilityImages.jpeg(stored, quality: 90, app1: ReliabilityImages.app1(ReliabilityImages.exif(orientation: UInt16(orientation))))
                let reference = ReliabilityImages.upright(try ReliabilityImages.decode(plain), orientation: orientation)
                let jpegPath = folder.appending(path: "jpeg-orientation-\(orientation).jpg").path
                let referencePath = folder.appending(path: "jpeg-orientation-\(orientation)-reference.png").path
                try Data(tagged).write(to: URL(fileURLWithPath: jpegPath))
                // libjpeg's output commutes exactly with a vertical flip here (256 rows, a multiple
                // of the MCU height), so two references can hold the same pixels; a byte after IEND
                // (ignored by decoders) keeps every file distinct for the copy detection.
                try Data(ReliabilityImages.png(reference) + [UInt8(orientation)]).write(to: URL(fileURLWithPath: referencePath))
                classified[jpegPath] = (385, 256)
                classified[referencePath] = (385, 256)
                sameAs.append((jpegPath, referencePath))
            }
            // PNG (eXIf) with two orientations: lossless, so the upright photo is the reference.
            for orientation in [3, 6] {
                let path = folder.appending(path: "png-orientation-\(orientation).png").path
                try Data(ReliabilityImages.png(ReliabilityImages.stored(cat, orientation: orientation), exif: ReliabilityImages.exif(orientation: UInt16(orientation)))).write(to: URL(fileURLWithPath: path))
                classified[path] = (385, 256)
                sameAs.append((path, upright))
            }
            // Malformed EXIF never stops a photo: it is shown as stored (upright here).
            let malformed: [(String, [UInt8])] = [
                ("ifd-outside", ReliabilityImages.tiff(entries: [(0x0112, 3, 1, 6)], ifdOffset: 0xFFFF_FF00)),
                ("count-past-end", ReliabilityImages.tiff(entries: [], entryCount: 0xFFFF)),
                ("ifd-loop", ReliabilityImages.tiff(entries: [(0x010F, 2, 4, 0x4141_4141)], nextIFD: 8)),
                ("value-9", ReliabilityImages.tiff(entries: [(0x0112, 3, 1, 9)])),
                ("bad-byte-order", Array("XX".utf8) + ReliabilityImages.exif(orientation: 6).dropFirst(2)),
                ("two-bytes", [0x49, 0x49]),
            ]
            for (name, tiff) in malformed {
                let path = folder.appending(path: "exif-\(name).png").path
                try Data(ReliabilityImages.png(cat, exif: tiff)).write(to: URL(fileURLWithPath: path))
                classified[path] = (385, 256)
                sameAs.append((path, upright))
            }
            let jpegPath = folder.appending(path: "exif-ifd-outside.jpg").path
            try Data(ReliabilityImages.jpeg(cat, quality: 90, app1: ReliabilityImages.app1(malformed[0].1))).write(to: URL(fileURLWithPath: jpegPath))
            classified[jpegPath] = (385, 256)
            sameAs.append((jpegPath, folder.appending(path: "jpeg-orientation-1-reference.png").path))
        }

        /// Folders of 200-byte names nested past PATH_MAX: the photo in the deepest folder that
        /// can be opened is classified; the first folder too deep is a failed row.
        mutating func makeDeepPaths(_ folder: URL) throws {
            let segment = String(repeating: "d", count: 200)
            var folders = [folder.path]
            var descriptor = open(folder.path, O_RDONLY | O_DIRECTORY)
            while folders.last!.utf8.count < Int(PATH_MAX) {
                #expect(mkdirat(descriptor, segment, 0o755) == 0)
                let next = openat(descriptor, segment, O_RDONLY | O_DIRECTORY)
                close(descriptor)
                descriptor = next
                folders.append(folders.last! + "/" + segment)
            }
            close(descriptor)
            let tooDeep = folders.last!
            failures[tooDeep] = "read: the path is too long for this system (\(tooDeep.utf8.count) bytes); move or rename its folders to index it"
            walkProblems.insert(tooDeep)
            let home = folders.dropLast().last { $0.utf8.count + 6 < Int(PATH_MAX) }!
            let photo = home + "/p.jpg"
            // Written through the parent folder's descriptor chain would also do; the path fits.
            try ReliabilityFixtures.photoCopy(42, to: URL(fileURLWithPath: photo))
            classified[photo] = (385, 256)
            #expect(photo.utf8.count > 3800)
            // A photo in a folder with a child too deep to open would be a second failure; there is
            // none: only `home`'s child can be too deep.
            #expect(folders.firstIndex(of: home)! >= folders.count - 3)
            if folders.firstIndex(of: home)! == folders.count - 3 {
                // The folder between `home` and the too-deep one fits but has nothing in it.
                #expect(folders[folders.count - 2].utf8.count < Int(PATH_MAX))
            }
        }

        // MARK: The run

        @Test(.timeLimit(.minutes(20)))
        func oneIndexRunClassifiesOrExplainsEveryFile() throws {
            let database = try ReliabilityFixtures.freshDatabase(in: scratch)
            let index = try ReliabilityProcess.run(
                ["index", root.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url, unprivileged: unprivileged)
            #expect(index.exited(2), "\(index)")
            let summary = try #require(index.lines.first)
            #expect(summary.hasPrefix("done in "), "\(index)")
            #expect(summary.hasSuffix("\(classified.count) new, 0 updated, 0 moved, 0 copied, 0 touched, 0 unchanged, 0 removed, \(failures.count) failed"), "\(summary)")

            // Every failure is listed with its stage and reason...
            let failedSearch = try ReliabilityProcess.run(["search", "--failed", "--format", "json", "--limit", "1000", "--db", database.path], scratch: scratch.url)
            #expect(failedSearch.exited(0), "\(failedSearch)")
            var listed: [String: String] = [:]
            for hit in try ReliabilityFixtures.json(failedSearch.stdout)["results"] as? [[String: Any]] ?? [] {
                let error = hit["error"] as? [String: String] ?? [:]
                listed[hit["path"] as? String ?? "?"] = "\(error["stage"] ?? "?"): \(error["reason"] ?? "?")"
            }
            #expect(listed.count == failures.count)
            for (path, expected) in failures.sorted(by: { $0.key < $1.key }) {
                #expect(listed[path] == expected, "\(path.suffix(80))")
            }
            for path in listed.keys where failures[path] == nil { Issue.record("unexpected failure: \(path): \(listed[path]!)") }

            // ...and everything else is classified, at its upright size.
            let all = try ReliabilityProcess.run(["search", "--format", "json", "--limit", "1000", "--db", database.path], scratch: scratch.url)
            #expect(all.exited(0), "\(all)")
            var sizes: [String: (Int, Int)] = [:]
            for hit in try ReliabilityFixtures.json(all.stdout)["results"] as? [[String: Any]] ?? [] {
                sizes[hit["path"] as? String ?? "?"] = (hit["width"] as? Int ?? 0, hit["height"] as? Int ?? 0)
            }
            #expect(Set(sizes.keys) == Set(classified.keys))
            for (path, size) in classified where sizes[path].map({ $0 != size }) ?? false {
                Issue.record("\(path.suffix(60)) is \(sizes[path]!), expected \(size)")
            }

            // Every file has its own content, so none was taken for a copy of another.
            let rows = try ReliabilityFixtures.images(database)
            let byContent = Dictionary(grouping: rows.filter { $0.value.contentHash != nil }, by: { $0.value.contentHash! })
            #expect(byContent.values.filter { $0.count > 1 }.map { $0.map(\.key) }.isEmpty)

            // Orientation to the pixel: identical feature prints and labels.
            let labels = try ReliabilityFixtures.labels(database)
            for (file, reference) in sameAs {
                let name = URL(fileURLWithPath: file).lastPathComponent
                #expect(rows[file]?.featurePrint != nil && rows[file]?.featurePrint == rows[reference]?.featurePrint, "\(name)")
                #expect(labels[file] != nil && labels[file] == labels[reference], "\(name)")
            }
            // Re-encodings of the photo (progressive, CMYK, YCCK, 16-bit, ...) are still that cat.
            let catTop = try topLabel(database, path: root.appending(path: "good/cat.jpg").path)
            #expect(catTop == "tiger_cat" || catTop == "tabby" || catTop == "Egyptian_cat", "\(catTop)")
            for path in likeTheCat {
                #expect(try topLabel(database, path: path) == catTop, "\(URL(fileURLWithPath: path).lastPathComponent)")
            }
            #expect(try ReliabilityFixtures.integrity(database) == "ok")

            // A second run redoes nothing that did not change; only walk problems are re-reported.
            let before = rows
            let again = try ReliabilityProcess.run(
                ["index", root.path, "--db", database.path, "--jobs", "2"], scratch: scratch.url, unprivileged: unprivileged)
            #expect(again.exited(2), "\(again)")
            #expect(again.lines.first?.hasSuffix(" 0 new, 0 updated, 0 moved, 0 copied, 0 touched, \(classified.count + failures.count - walkProblems.count) unchanged, 0 removed, \(walkProblems.count) failed") == true, "\(again)")
            let after = try ReliabilityFixtures.images(database)
            #expect(Set(after.keys) == Set(before.keys))
            for (path, row) in before where !walkProblems.contains(path) {
                #expect(after[path] == row, "\(path.suffix(60)) was written again")
            }
        }

        /// `classify` over the failures and one good photo: a line per file, exit status 2.
        @Test(.timeLimit(.minutes(20)))
        func classifyReportsEveryFileAndGoesOn() throws {
            let failuresFolder = root.appending(path: "failures")
            let good = root.appending(path: "good/cat.jpg")
            let outcome = try ReliabilityProcess.run(
                ["classify", failuresFolder.path, good.path, "--format", "jsonl", "--top", "1"], scratch: scratch.url, unprivileged: unprivileged)
            #expect(outcome.exited(2), "\(outcome)")
            var reported: [String: String] = [:]
            for line in outcome.lines {
                let object = try ReliabilityFixtures.json(line)
                let path = object["path"] as? String ?? "?"
                if let error = object["error"] as? [String: String] {
                    reported[path] = "\(error["stage"] ?? "?"): \(error["reason"] ?? "?")"
                } else {
                    reported[path] = "classified \(object["width"] as? Int ?? 0)x\(object["height"] as? Int ?? 0)"
                }
            }
            var expected = failures.filter { $0.key.hasPrefix(failuresFolder.path + "/") }
            expected[good.path] = "classified 385x256"
            #expect(reported == expected)
            #expect(outcome.stderr.contains("\(expected.count - 1) of \(expected.count) files failed"), "\(outcome.stderr)")
        }

        func topLabel(_ database: URL, path: String) throws -> String {
            try ReliabilityFixtures.read(database) { db in
                try String.fetchOne(db, sql: """
                    SELECT l.identifier FROM observations AS o JOIN images AS i ON i.id = o.image_id
                    JOIN labels AS l ON l.id = o.label_id
                    WHERE i.path = ? AND o.confidence IS NOT NULL AND NOT EXISTS (SELECT 1 FROM label_parents AS p WHERE p.parent_id = l.id)
                    ORDER BY o.confidence DESC LIMIT 1
                    """, arguments: [path]) ?? "none"
            }
        }
    }
}
