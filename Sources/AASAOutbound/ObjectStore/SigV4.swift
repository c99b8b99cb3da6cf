import AASAKernel
import AASAStore
import Crypto
import Foundation

/// AWS Signature Version 4, the one signer of every request to S3, STS and CloudFront. There is no
/// AWS SDK in the package mirror, so it is written here, small, and tested differentially against
/// botocore's `SigV4Auth`/`S3SigV4Auth` (`SigV4Tests`): both must give the same `Authorization`.
package struct SigV4: Sendable {
    package var credentials: AWSKeys
    package var region: String
    package var service: String

    package init(credentials: AWSKeys, region: String, service: String) {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// A request before signing: the path as raw segments joined by `/` (encoded here, once), the
    /// query as raw pairs, and every header to send (all are signed).
    package struct Request: Sendable {
        package var method: String
        package var scheme: String
        /// `host` or `host:port`, as the `Host` header carries it.
        package var authority: String
        /// Unencoded: `/bucket/a b/ü.json`.
        package var path: String
        package var query: [(String, String)] = []
        package var headers: [(String, String)] = []
        package var body: [UInt8] = []

        package init(
            method: String, scheme: String, authority: String, path: String, query: [(String, String)] = [],
            headers: [(String, String)] = [], body: [UInt8] = []
        ) {
            self.method = method
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.headers = headers
            self.body = body
        }

        /// The path as sent: each byte outside RFC 3986's unreserved set percent-encoded, `/` kept.
        package var encodedPath: String { SigV4.encode(path, keepSlash: true) }

        package var encodedQuery: String {
            query.map { SigV4.encode($0.0, keepSlash: false) + "=" + SigV4.encode($0.1, keepSlash: false) }
                .joined(separator: "&")
        }

        package var url: String {
            "\(scheme)://\(authority)\(encodedPath)" + (query.isEmpty ? "" : "?" + encodedQuery)
        }
    }

    /// The headers to send: the request's own, `host`, `x-amz-date`, `x-amz-content-sha256`, the
    /// session token when there is one, and `authorization`.
    package func sign(_ request: Request, at date: Date) -> [(String, String)] {
        let stamp = Self.timestamp(date)
        let day = String(stamp.prefix(8))
        var headers = request.headers
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { headers.append(("host", request.authority)) }
        headers.append(("x-amz-date", stamp))
        headers.append(("x-amz-content-sha256", Hex.sha256(request.body)))
        if let token = credentials.sessionToken { headers.append(("x-amz-security-token", token)) }

        // Lower-cased names, sorted; repeated names joined by commas; values' runs of spaces folded.
        var canonical: [String: [String]] = [:]
        for (name, value) in headers {
            canonical[name.lowercased(), default: []].append(
                value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " "))
        }
        let names = canonical.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [
            request.method.uppercased(),
            canonicalURI(request),
            canonicalQuery(request),
            names.map { "\($0):\(canonical[$0]!.joined(separator: ","))\n" }.joined(),
            signedHeaders,
            Hex.sha256(request.body),
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", stamp, scope, Hex.sha256(canonicalRequest.utf8),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Hex.string(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        headers.append(
            (
                "authorization",
                "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), "
                    + "Signature=\(signature)"
            ))
        return headers
    }

    /// S3 signs the path as sent; every other service encodes the sent path once more.
    private func canonicalURI(_ request: Request) -> String {
        let sent = request.encodedPath.isEmpty ? "/" : request.encodedPath
        return service == "s3" ? sent : Self.encode(sent, keepSlash: true)
    }

    /// The encoded pairs sorted by key, then value.
    private func canonicalQuery(_ request: Request) -> String {
        request.query.map { (Self.encode($0.0, keepSlash: false), Self.encode($0.1, keepSlash: false)) }
            .sorted {
                $0.0 == $1.0
                    ? Array($0.1.utf8).lexicographicallyPrecedes(Array($1.1.utf8))
                    : Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8))
            }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// RFC 3986 percent-encoding of every byte but the unreserved ones (and `/` when `keepSlash`),
    /// upper-case hex, as AWS asks.
    package static func encode(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += "%" + Hex.string([byte]).uppercased()
            }
        }
        return out
    }

    /// `20261127T093000Z`.
    package static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
