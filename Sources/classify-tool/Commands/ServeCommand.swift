import ArgumentParser
import ClassifyGallery
import ClassifySupport
import Foundation
import TagIndex
import TagIndexPostgres

/// `classify-tool serve`: the photos in a browser, searched, grouped and browsed by label.
///
/// Usage: `classify-tool serve --port 8080 --open`
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Show the indexed photos in a local web gallery.",
        discussion: """
            Starts a web server over the index and prints its URL on the first line.
            It listens on 127.0.0.1 (this machine only) unless --host says otherwise.
            The server reads the index while `index` runs; a reload shows the new
            photos. Its only writes are people's names and corrections (the People
            pages), made with a form token per browser session. Off loopback, every
            request needs the access token in the printed URL (then kept in a cookie);
            without it the answer is 401. --db postgres://... serves a shared
            PostgreSQL index; --root NAME=FOLDER (as index takes it) says where a
            named library's files are on this machine (a photo whose file is not
            found shows its labels and a placeholder). Thumbnails are cached in
            $XDG_CACHE_HOME/classify-tool/thumbnails (~/.cache/...). The JSON API is
            under /api/ (see docs/gallery.md). Ctrl-C stops it.

            Examples:
              classify-tool serve --open
              classify-tool serve --db photos.sqlite --port 9000
              classify-tool serve --db postgres://me@nas/pics --root pics=/mnt/pics
              curl 'http://127.0.0.1:8080/api/search?q=dog'
            """)

    @Option(help: "Port to listen on (0 picks a free one).") var port = 8080
    @Option(help: ArgumentHelp("Address to listen on. Anything but a loopback address lets other machines on the network see the photos.", valueName: "addr"))
    var host = "127.0.0.1"
    @Flag(help: "Open the gallery in the default browser.") var open = false
    @Option(help: ArgumentHelp("Thumbnail cache folder.", valueName: "dir")) var cacheDir: String?
    @Option(
        name: .customLong("root"),
        help: ArgumentHelp("Where a named library of a PostgreSQL index is on this machine (repeatable).", valueName: "name=folder"))
    var roots: [String] = []
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var verbosity: VerbosityOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port takes 0...65535") }
        guard !host.isEmpty else { throw ValidationError("--host takes an address such as 127.0.0.1") }
        _ = try libraryRoots()
    }

    /// The `--root` values, parsed as `index --root` parses them.
    func libraryRoots() throws -> [LibraryRoot] {
        try roots.map { value in
            do {
                return try LibraryRoot(parsing: value)
            } catch let error as TagIndexError {
                throw ValidationError("--root \(value): \(error)")
            }
        }
    }

    func run() async throws {
        verbosity.apply()
        let location = database.indexLocation
        if let file = location.fileURL, !FileManager.default.fileExists(atPath: file.path) {
            Terminal.error("error: no index at \(file.path); build one with: classify-tool index FOLDER\(database.given == nil ? "" : " --db \(file.path)")")
            throw ExitCode(ToolExit.failure)
        }
        var configuration = GalleryConfiguration(location: location)
        configuration.opener = .standard
        configuration.roots = try libraryRoots()
        for root in configuration.roots {
            if root.name == nil {
                Terminal.note("--root \(root): a root without a name maps nothing (absolute paths are read as they are)")
            } else if !RawPath.exists(root.localPath.isEmpty ? "/" : root.localPath) {
                Terminal.error("warning: --root \(root): \(root.localPath) does not exist; its photos show placeholders")
            }
        }
        configuration.host = host
        configuration.port = port
        if let cacheDir { configuration.cacheDirectory = URL(fileURLWithPath: cacheDir, isDirectory: true) }
        let server: GalleryServer
        do {
            server = try await GalleryServer(configuration: configuration)
        } catch {
            Terminal.error("error: \(error)")
            throw ExitCode(ToolExit.failure)
        }
        if !configuration.isLoopbackOnly {
            Terminal.error("warning: listening on \(host): anyone on that network who has the URL below (with its access token) can see the photos, their paths and people's names")
        }
        let openBrowser = open
        do {
            try await server.run(logLevel: Terminal.verbose ? .info : .warning) { url in
                Terminal.out(url.absoluteString)
                // The location as messages name it: a PostgreSQL URL without its password.
                Terminal.note("serving \(location); Ctrl-C stops")
                if openBrowser { Self.openInBrowser(url) }
            }
        } catch {
            Terminal.error("error: cannot serve on \(host):\(port): \(error)")
            throw ExitCode(ToolExit.failure)
        }
    }

    /// Opens `url` with xdg-open (or macOS's open); a note when neither exists.
    static func openInBrowser(_ url: URL) {
        for tool in ["/usr/bin/xdg-open", "/usr/bin/open"] where FileManager.default.isExecutableFile(atPath: tool) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = [url.absoluteString]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) != nil { return }
        }
        Terminal.note("--open: no xdg-open here; open \(url.absoluteString) in a browser")
    }
}
