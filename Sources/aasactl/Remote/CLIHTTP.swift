import AsyncHTTPClient
import Foundation
import NIOSSL

/// The HTTP client every aasactl request goes out on. It trusts the system's roots, and the PEM
/// file `SSL_CERT_FILE` names as well (as curl and OpenSSL do): a private CA in front of aasad,
/// or a CI provider's token endpoint behind a corporate proxy.
enum CLIHTTP {
    static let client: HTTPClient = {
        guard let file = ProcessInfo.processInfo.environment["SSL_CERT_FILE"], !file.isEmpty else {
            return HTTPClient.shared
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.additionalTrustRoots = [.file(file)]
        var configuration = HTTPClient.Configuration.singletonConfiguration
        configuration.tlsConfiguration = tls
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

/// `application/x-www-form-urlencoded`, each name and value percent-encoded but for unreserved characters.
enum FormEncoding {
    static func encode(_ pairs: [(String, String)]) -> String {
        var unreserved = CharacterSet.alphanumerics
        unreserved.insert(charactersIn: "-._~")
        func escape(_ s: String) -> String { s.addingPercentEncoding(withAllowedCharacters: unreserved) ?? s }
        return pairs.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }
}
