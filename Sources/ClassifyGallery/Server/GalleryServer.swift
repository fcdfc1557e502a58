import Foundation
import Hummingbird
import Logging

/// The local web gallery over an index: search page, photo pages, near-duplicates, labels,
/// statistics and a JSON API, on Hummingbird, over a SQLite or a PostgreSQL index. It only reads
/// the index (an `index` run may write meanwhile; a reload shows new photos) and serves photos
/// only by their id in the index, as re-encoded JPEGs.
///
/// ```swift
/// let server = try await GalleryServer(configuration: GalleryConfiguration(databaseURL: url))
/// try await server.run { url in print(url) }   // until SIGINT or SIGTERM
/// ```
public struct GalleryServer: Sendable {
    let configuration: GalleryConfiguration
    let services: GalleryServices

    /// Opens the index (read-only) and loads the templates; throws when the index cannot be read.
    ///
    /// ```swift
    /// let server = try await GalleryServer(configuration: configuration)
    /// ```
    public init(configuration: GalleryConfiguration) async throws {
        var configuration = configuration
        if !configuration.isLoopbackOnly && configuration.accessToken == nil { configuration.accessToken = Secrets.token() }
        self.configuration = configuration
        services = try await GalleryServices(configuration: configuration)
    }

    /// The routes, with the protective headers and error pages on every response.
    func router(hosts: HostCheck) -> Router<GalleryRequestContext> {
        let router = Router(context: GalleryRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware(hosts: hosts))
        router.add(middleware: ErrorMiddleware(pages: services.pages))
        // Off loopback, every request shows the access token first; every POST its session's form token.
        router.add(middleware: AccessTokenMiddleware(token: configuration.accessToken))
        router.add(middleware: CSRFMiddleware())
        SearchController(services: services).addRoutes(to: router)
        ImageController(services: services).addRoutes(to: router)
        RenditionController(services: services).addRoutes(to: router)
        DuplicatesController(services: services).addRoutes(to: router)
        LabelsController(services: services).addRoutes(to: router)
        StatsController(services: services).addRoutes(to: router)
        PeopleController(services: services).addRoutes(to: router)
        AssetsController().addRoutes(to: router)
        return router
    }

    /// Listens until SIGINT or SIGTERM, then finishes the requests in flight and returns.
    /// `onListening` gets the URL (with the port actually bound when the configuration says 0).
    ///
    /// ```swift
    /// try await server.run { url in print(url); fflush(stdout) }
    /// ```
    public func run(logLevel: Logger.Level = .warning, onListening: @escaping @Sendable (URL) -> Void) async throws {
        var logger = Logger(label: "classify-gallery") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel
        let host = configuration.host
        let hostForURL = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        let hosts = HostCheck()
        let loopbackOnly = configuration.isLoopbackOnly
        let app = Application(
            router: router(hosts: hosts),
            configuration: .init(address: .hostname(host, port: configuration.port)),
            onServerRunning: { channel in
                let bound = channel.localAddress?.port ?? configuration.port
                // Only now is the port known (0 asks for a free one).
                if loopbackOnly { hosts.allow(HostCheck.loopbackNames(host: hostForURL, port: bound)) }
                // Off loopback the address carries the access token once; the browser keeps it in a cookie.
                let token = configuration.accessToken.map { "?token=\($0)" } ?? ""
                onListening(URL(string: "http://\(hostForURL):\(bound)/\(token)")!)
            },
            logger: logger)
        try await app.runService()
        // A connection the server cut can take long to close: the process does not wait for it.
        let index = services.index
        try? await withDeadline(.seconds(2), expired: { CancellationError() }) { await index.close() }
    }
}
