/// The file an import reads when it is not given: what the origin serves at
/// `/.well-known/apple-app-site-association`, or Apple's CDN copy, fetched as the probe fetches
/// (TLS verified, no redirect followed, one deadline, the size limit, no private address).
enum ImportSource {
    static func fetch(_ host: String, cdn: Bool, fetcher: AppleFetcher) async throws -> [UInt8] {
        let url =
            cdn
            ? fetcher.config.cdnBaseURL + host
            : fetcher.originURL(host: host, path: "/.well-known/apple-app-site-association")
        let fetched = await fetcher.fetch(url)
        let place = cdn ? "Apple's CDN" : "the origin"
        if let failure = fetched.failure {
            throw ServiceError.invalid(
                field: "/source", rule: "fetch", "\(place) could not be read at \(url): \(failure)")
        }
        guard fetched.status == 200, let bytes = fetched.bytes else {
            throw ServiceError.invalid(
                field: "/source", rule: "fetch",
                "\(place) answered \(fetched.status.map(String.init) ?? "nothing") at \(url), not 200 with the file")
        }
        return bytes
    }
}
