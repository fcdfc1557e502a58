import TagIndex
import NIOSSL
import PostgresNIO

extension PostgresDescriptor {
    /// PostgresNIO's configuration for this descriptor: TLS as `sslMode` asks, `timeout` for the
    /// connection attempt.
    ///
    /// `prefer` and `allow` try TLS without checking the certificate and fall back to plain TCP;
    /// `require` insists on TLS without checking the certificate (as libpq does); `verify-ca` and
    /// `verify-full` check the chain against the system's trust roots, `verify-full` also the host name.
    ///
    /// Usage: `let configuration = try descriptor.connectionConfiguration(timeout: .seconds(10))`
    func connectionConfiguration(timeout: TimeAmount) throws -> PostgresConnection.Configuration {
        let tls: PostgresConnection.Configuration.TLS
        switch sslMode {
        case .disable:
            tls = .disable
        case .allow, .prefer, .require:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = .none
            let context = try NIOSSLContext(configuration: configuration)
            tls = sslMode == .require ? .require(context) : .prefer(context)
        case .verifyCA, .verifyFull:
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.certificateVerification = sslMode == .verifyFull ? .fullVerification : .noHostnameVerification
            tls = .require(try NIOSSLContext(configuration: configuration))
        }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = timeout
        // Searches are short statements whose estimated costs still pass the JIT threshold on a
        // large library: compiling them took 100-250 ms of a 20-400 ms search (PostgreSQL 15,
        // 1,000,000 images), longer than running them.
        configuration.options.additionalStartupParameters = [("jit", "off")]
        return configuration
    }
}
