import AASAKernel
import AASAStore
import Crypto
import Foundation

/// One bucket of an S3-compatible store as a target names it: where its objects' URLs point and
/// how each request is signed. PUT and HEAD are all publishing needs.
package struct S3Bucket: Sendable {
    package let spec: TargetSpec
    package let keys: AWSKeys
    package let http: ObjectStoreHTTP

    package init(spec: TargetSpec, keys: AWSKeys, http: ObjectStoreHTTP) {
        self.spec = spec
        self.keys = keys
        self.http = http
    }

    /// What a HEAD says of an object (nil fields: the store did not say).
    package struct Head: Sendable, Equatable {
        package var size: Int?
        package var contentType: String?
        package var eTag: String?
        package var cacheControl: String?
        package var revision: String?
        package var sha256: String?
    }

    package struct Failure: Error, CustomStringConvertible, Sendable {
        package var description: String
    }

    /// Scheme, authority and path of `key`, by the target's addressing.
    private func location(_ key: String) -> (scheme: String, authority: String, path: String) {
        let bucket = spec.bucket ?? ""
        let region = spec.region ?? "us-east-1"
        guard let endpoint = spec.endpoint, let url = URLComponents(string: endpoint), let host = url.host else {
            return spec.addressing == "path"
                ? ("https", "s3.\(region).amazonaws.com", "/\(bucket)/\(key)")
                : ("https", "\(bucket).s3.\(region).amazonaws.com", "/\(key)")
        }
        let authority = host + (url.port.map { ":\($0)" } ?? "")
        let scheme = url.scheme?.lowercased() ?? "https"
        return spec.addressing == "virtual"
            ? (scheme, "\(bucket).\(authority)", "/\(key)") : (scheme, authority, "/\(bucket)/\(key)")
    }

    private func signed(_ method: String, key: String, headers: [(String, String)] = [], body: [UInt8] = [])
        -> (url: String, headers: [(String, String)])
    {
        let (scheme, authority, path) = location(key)
        let request = SigV4.Request(
            method: method, scheme: scheme, authority: authority, path: path, headers: headers, body: body)
        let signer = SigV4(credentials: keys, region: spec.region ?? "us-east-1", service: "s3")
        return (request.url, signer.sign(request, at: Date()))
    }

    /// Writes one object with its content type, cache policy, revision and SHA-256 as metadata, and
    /// `Content-MD5`, which the store checks against what it received.
    package func put(key: String, bytes: [UInt8], revision: Int) async throws {
        let headers = [
            ("Content-Type", "application/json"), ("Cache-Control", spec.cacheControl ?? "max-age=3600"),
            ("Content-MD5", Data(Insecure.MD5.hash(data: bytes)).base64EncodedString()),
            ("x-amz-meta-aasa-revision", String(revision)), ("x-amz-meta-aasa-sha256", Hex.sha256(bytes)),
        ]
        let (url, signedHeaders) = signed("PUT", key: key, headers: headers, body: bytes)
        let response = try await http.send(method: "PUT", url: url, headers: signedHeaders, body: bytes)
        guard response.status == 200 else { throw Failure(description: "PUT \(key): \(response.problem)") }
    }

    /// The object's head; nil when it does not exist.
    package func head(key: String) async throws -> Head? {
        let (url, signedHeaders) = signed("HEAD", key: key)
        let response = try await http.send(method: "HEAD", url: url, headers: signedHeaders)
        if response.status == 404 { return nil }
        guard response.status == 200 else { throw Failure(description: "HEAD \(key): HTTP \(response.status)") }
        return Head(
            size: response.header("content-length").flatMap { Int($0) }, contentType: response.header("content-type"),
            eTag: response.header("etag"), cacheControl: response.header("cache-control"),
            revision: response.header("x-amz-meta-aasa-revision"), sha256: response.header("x-amz-meta-aasa-sha256"))
    }

    /// What differs between an object's head and the bytes it should hold; empty when nothing does.
    /// A single-part upload's ETag is its MD5 (a store encrypting with KMS gives another kind, of
    /// another length, which is then not compared); the SHA-256 is our own metadata.
    package static func differences(_ head: Head, bytes: [UInt8]) -> [String] {
        var out: [String] = []
        if head.size != bytes.count {
            out.append("size \(head.size.map(String.init) ?? "?") instead of \(bytes.count)")
        }
        if head.contentType?.lowercased().hasPrefix("application/json") != true {
            out.append("Content-Type \(head.contentType ?? "(none)") instead of application/json")
        }
        let md5 = Hex.string(Insecure.MD5.hash(data: bytes))
        if let tag = head.eTag?.trimmingCharacters(in: CharacterSet(charactersIn: "\"W/")), tag.count == 32,
            tag.lowercased() != md5
        {
            out.append("ETag \(tag) is not the MD5 of the bytes (\(md5))")
        }
        if head.sha256 != Hex.sha256(bytes) { out.append("the aasa-sha256 metadata is not the bytes' SHA-256") }
        return out
    }
}
