import AASAKernel
import AASAOutbound
import AASARules
import Foundation

/// A CDN purge after the objects are written: CloudFront's `CreateInvalidation`, Cloudflare's purge
/// by URL, or an HTTP purge (`PURGE` per URL for Varnish, Fastly or an nginx cache; or one `POST`).
package struct Purge: Sendable {
    package let spec: TargetSpec
    package let credentials: CredentialSets
    package let http: ObjectStoreHTTP

    package init(spec: TargetSpec, credentials: CredentialSets, http: ObjectStoreHTTP) {
        self.spec = spec
        self.credentials = credentials
        self.http = http
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// Purges `paths` (`/.well-known/…`) at every base URL (the host and its aliases, or the
    /// target's public URL). Returns what the provider called the purge (an invalidation ID, …).
    package func run(paths: [String], bases: [String], reference: String) async throws -> String {
        switch spec.provider {
        case .cloudfront?: return try await cloudFront(paths: paths, reference: reference)
        case .cloudflare?:
            return try await cloudflare(urls: bases.flatMap { base in paths.map { base + $0 } })
        case .http?: return try await httpPurge(paths: paths, urls: bases.flatMap { base in paths.map { base + $0 } })
        case nil: throw Failure(description: "the purge names no provider")
        }
    }

    private func cloudFront(paths: [String], reference: String) async throws -> String {
        let id = spec.distributionID ?? ""
        let endpoint = URLComponents(string: spec.endpoint ?? "https://cloudfront.amazonaws.com")
        let scheme = endpoint?.scheme ?? "https"
        let authority = (endpoint?.host ?? "cloudfront.amazonaws.com") + (endpoint?.port.map { ":\($0)" } ?? "")
        let items = paths.map { "<Path>\(Self.escape($0))</Path>" }.joined()
        let body = Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <InvalidationBatch xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Paths>\
            <Quantity>\(paths.count)</Quantity><Items>\(items)</Items></Paths>\
            <CallerReference>\(Self.escape(reference))</CallerReference></InvalidationBatch>
            """.utf8)
        let request = SigV4.Request(
            method: "POST", scheme: scheme, authority: authority, path: "/2020-05-31/distribution/\(id)/invalidation",
            headers: [("Content-Type", "text/xml")], body: body)
        // CloudFront is global: its requests are signed for us-east-1.
        let keys = try await credentials.awsKeys(spec.credentials ?? "", region: "us-east-1")
        let headers = SigV4(credentials: keys, region: "us-east-1", service: "cloudfront").sign(request, at: Date())
        let response = try await http.send(method: "POST", url: request.url, headers: headers, body: body)
        guard response.status == 201 || response.status == 200 else {
            throw Failure(description: "CloudFront CreateInvalidation on \(id): \(response.problem)")
        }
        return "invalidation " + (XMLText.first("Id", in: response.body) ?? "(no ID)")
    }

    private func cloudflare(urls: [String]) async throws -> String {
        let base = (spec.endpoint ?? "https://api.cloudflare.com/client/v4").trimmingCharacters(
            in: CharacterSet(charactersIn: "/"))
        let token = try credentials.bearerToken(spec.credentials ?? "")
        let body = try JSONSerialization.data(withJSONObject: ["files": urls], options: [.withoutEscapingSlashes])
        let response = try await http.send(
            method: "POST", url: "\(base)/zones/\(spec.zoneID ?? "")/purge_cache",
            headers: [("Authorization", "Bearer \(token)"), ("Content-Type", "application/json")], body: Array(body))
        let answer = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        guard response.status == 200, answer?["success"] as? Bool == true else {
            let errors = (answer?["errors"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            throw Failure(
                description: "Cloudflare purge of zone \(spec.zoneID ?? ""): HTTP \(response.status)"
                    + (errors.isEmpty ? "" : ": " + errors.joined(separator: "; ")))
        }
        let id = (answer?["result"] as? [String: Any])?["id"] as? String
        return "purge " + (id ?? "accepted")
    }

    private func httpPurge(paths: [String], urls: [String]) async throws -> String {
        var headers: [(String, String)] = []
        if let name = spec.credentials {
            headers.append(("Authorization", "Bearer \(try credentials.bearerToken(name))"))
        }
        if spec.method == "POST" {
            let body = try JSONSerialization.data(withJSONObject: ["files": urls], options: [.withoutEscapingSlashes])
            let response = try await http.send(
                method: "POST", url: spec.url ?? "", headers: headers + [("Content-Type", "application/json")],
                body: Array(body))
            guard (200..<300).contains(response.status) else {
                throw Failure(
                    description: "POST purge \(ObjectStoreHTTP.withoutQuery(spec.url ?? "")): \(response.problem)")
            }
            return "POST \(urls.count) URLs"
        }
        // PURGE per file: the purge URL with each file's path.
        let base = (spec.url ?? "").trimmingCharacters(in: CharacterSet(charactersIn: "/"))
        var purged = 0
        for path in paths {
            let response = try await http.send(method: "PURGE", url: base + path, headers: headers)
            // 404: nothing was cached for it, which is what a purge wants.
            guard (200..<300).contains(response.status) || response.status == 404 else {
                throw Failure(description: "PURGE \(base + path): \(response.problem)")
            }
            purged += 1
        }
        return "PURGE \(purged) URLs"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
