import AASAKernel
import AASAStore
import Foundation

/// One of a domain's targets as the API and the database carry it: a web root (kept in the
/// domain's `webRoots`, as always), an S3-compatible bucket, or a CDN purge run after the objects
/// are written. Every field is checked by `TargetSpecs.check` before it is stored; a credential
/// set is a name only.
package struct TargetSpec: Codable, Sendable, Equatable {
    package enum Kind: String, Codable, Sendable { case webRoot, s3, purge }
    package enum Provider: String, Codable, Sendable { case cloudfront, cloudflare, http }

    package var kind: Kind
    /// The target's stable name, made by the check: `s3://bucket/prefix`, `cloudfront:E123`,
    /// `cloudflare:zone`, `http:url` (outcomes are kept under it).
    package var name: String?

    // webRoot
    package var path: String?

    // s3
    package var bucket: String?
    package var prefix: String?
    package var region: String?
    /// Absent: AWS (`https://s3.<region>.amazonaws.com`).
    package var endpoint: String?
    /// `virtual` (bucket in the host name; AWS's default) or `path` (the default for another endpoint).
    package var addressing: String?
    package var cacheControl: String?
    /// Where the files are reached from outside (default `https://<host>`): the edge check fetches there.
    package var publicURL: String?

    // purge
    package var provider: Provider?
    package var distributionID: String?
    package var zoneID: String?
    /// An HTTP purge's URL (PURGE: the base the files' paths are added to; POST: the URL posted to).
    package var url: String?
    package var method: String?

    // s3 and purge
    package var credentials: String?
    /// Plain http to the endpoint: for tests and a store on loopback only.
    package var insecure: Bool?

    package init(kind: Kind) { self.kind = kind }

    package var legacyKey: String { (prefix ?? "") + "apple-app-site-association" }

    /// The object key of a file under `.well-known`.
    package func key(_ file: PublishedFile) -> String { (prefix ?? "") + ".well-known/" + file.name }

    package var json: String { StoredJSON.encode(self) }

    package static func decode(_ text: String) -> TargetSpec? { StoredJSON.decode(TargetSpec.self, text) }
}
