import AASAKernel
import AASAOutbound
import AASARules

/// The files an import reads when they are not given: what the origin serves at
/// `/.well-known/apple-app-site-association` (and `/.well-known/assetlinks.json`), or Apple's CDN
/// copy of the AASA, fetched as the probe fetches (TLS verified, no redirect followed, one
/// deadline, the size limit, no private address). A 404 is "the domain serves no such file";
/// every other failure is a 422 naming `/source`.
package enum ImportSource {
    package struct Files: Sendable {
        package var aasa: [UInt8]?
        package var android: [UInt8]?
    }

    package static func fetch(_ host: String, cdn: Bool, android: Bool, fetcher: OutboundClient) async throws -> Files {
        let url =
            cdn
            ? fetcher.config.cdnBaseURL + host
            : fetcher.originURL(host: host, path: "/.well-known/apple-app-site-association")
        var files = Files()
        files.aasa = try await file(at: url, from: cdn ? "Apple's CDN" : "the origin", fetcher: fetcher)
        if android {
            files.android = try await file(
                at: fetcher.originURL(host: host, path: "/.well-known/assetlinks.json"), from: "the origin",
                fetcher: fetcher)
        }
        guard files.aasa != nil || files.android != nil else {
            throw ServiceError.invalid(
                field: "/source", rule: "fetch", "\(host) serves neither file (404 for each) at \(url)")
        }
        return files
    }

    /// The bytes at `url`, nil for a 404.
    package static func file(at url: String, from place: String, fetcher: OutboundClient) async throws -> [UInt8]? {
        let fetched = await fetcher.fetch(url)
        if let failure = fetched.failure {
            throw ServiceError.invalid(
                field: "/source", rule: "fetch", "\(place) could not be read at \(url): \(failure)")
        }
        if fetched.status == 404 { return nil }
        guard fetched.status == 200, let bytes = fetched.bytes else {
            throw ServiceError.invalid(
                field: "/source", rule: "fetch",
                "\(place) answered \(fetched.status.map(String.init) ?? "nothing") at \(url), not 200 with the file")
        }
        return bytes
    }
}
