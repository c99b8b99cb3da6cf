import AASAKernel
import AASAOutbound
import AASARules
import Foundation

/// The rules a target must meet before it is stored: each failure is a 422 naming
/// `/targets/N/<field>` and the rule, and nothing is written.
package enum TargetSpecCheck {
    /// The contract's size limits (openapi.yaml `Target`), checked before anything is read or
    /// locked: an oversized body is refused the same way whatever the domain's state.
    package static func checkLimits(_ specs: [TargetSpec]) throws {
        guard specs.count <= 32 else {
            throw ServiceError.invalid(field: "/targets", rule: "max-items", "a domain has at most 32 targets")
        }
        var errors: [FieldError] = []
        for (i, spec) in specs.enumerated() {
            let fields: [(String, String?, Int)] = [
                ("path", spec.path, 1024), ("bucket", spec.bucket, 63), ("prefix", spec.prefix, 512),
                ("region", spec.region, 32), ("endpoint", spec.endpoint, 2048),
                ("cacheControl", spec.cacheControl, 256),
                ("publicURL", spec.publicURL, 2048), ("distributionID", spec.distributionID, 64),
                ("zoneID", spec.zoneID, 64), ("url", spec.url, 2048), ("credentials", spec.credentials, 128),
            ]
            for (field, value, limit) in fields where (value?.unicodeScalars.count ?? 0) > limit {
                errors.append(
                    FieldError(
                        field: "/targets/\(i)/\(field)", rule: "max-length", message: "at most \(limit) characters"))
            }
        }
        if !errors.isEmpty { throw ServiceError.invalid(errors) }
    }

    /// The checked object-store and purge targets (web roots are returned apart: they stay the
    /// domain's `webRoots` and are checked by the domain's own rules), each named.
    package static func check(
        _ specs: [TargetSpec], credentialSets: Set<String>
    ) throws -> (webRoots: [(index: Int, path: String)], objects: [TargetSpec]) {
        var errors: [FieldError] = []
        var webRoots: [(Int, String)] = []
        var objects: [TargetSpec] = []
        for (i, spec) in specs.enumerated() {
            func fail(_ field: String, _ rule: String, _ message: String) {
                errors.append(FieldError(field: "/targets/\(i)/\(field)", rule: rule, message: message))
            }
            var spec = spec
            switch spec.kind {
            case .webRoot:
                guard let path = spec.path else {
                    fail("path", "required", "a web-root target names its directory")
                    continue
                }
                webRoots.append((i, path))
            case .s3:
                checkS3(&spec, credentialSets: credentialSets, fail: fail)
                objects.append(spec)
            case .purge:
                checkPurge(&spec, credentialSets: credentialSets, fail: fail)
                objects.append(spec)
            }
        }
        let names = objects.compactMap(\.name)
        if let twice = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
            errors.append(FieldError(field: "/targets", rule: "unique", message: "\(twice) is listed twice"))
        }
        if objects.contains(where: { $0.kind == .purge }) && !objects.contains(where: { $0.kind == .s3 })
            && webRoots.isEmpty
        {
            errors.append(
                FieldError(
                    field: "/targets", rule: "purge-after-write",
                    message: "a purge runs after the files are written: list a web root or a bucket too"))
        }
        guard errors.isEmpty else { throw ServiceError.invalid(errors) }
        return (webRoots, objects)
    }

    private static func checkS3(
        _ spec: inout TargetSpec, credentialSets: Set<String>, fail: (String, String, String) -> Void
    ) {
        let insecure = spec.insecure ?? false
        if let problem = bucketProblem(spec.bucket ?? "") { fail("bucket", "bucket-name", problem) }
        let prefix = spec.prefix ?? ""
        if let problem = prefixProblem(prefix) { fail("prefix", "key-prefix", problem) }
        spec.prefix = prefix.isEmpty || prefix.hasSuffix("/") ? prefix : prefix + "/"
        spec.region = spec.region ?? "us-east-1"
        if !isToken(spec.region ?? "", allowed: "abcdefghijklmnopqrstuvwxyz0123456789-", max: 32) {
            fail("region", "region", "a region is lower-case letters, digits and hyphens, like eu-west-1")
        }
        if let endpoint = spec.endpoint, let problem = urlProblem(endpoint, insecure: insecure, pathAllowed: false) {
            fail("endpoint", "https-url", problem)
        }
        spec.addressing = spec.addressing ?? (spec.endpoint == nil ? "virtual" : "path")
        if spec.addressing != "virtual" && spec.addressing != "path" {
            fail("addressing", "addressing", "addressing is virtual (bucket.endpoint) or path (endpoint/bucket)")
        }
        if spec.addressing == "virtual", let bucket = spec.bucket, bucket.contains("."), !insecure {
            fail(
                "addressing", "addressing",
                "a bucket with dots does not match the store's TLS certificate in a host name: use path addressing")
        }
        spec.cacheControl = spec.cacheControl ?? "max-age=3600"
        if let value = spec.cacheControl,
            value.isEmpty || value.utf8.count > 256
                || value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value > 0x7E })
        {
            fail("cacheControl", "header-value", "Cache-Control is 1 to 256 printable ASCII characters")
        }
        if let url = spec.publicURL, let problem = urlProblem(url, insecure: false, pathAllowed: false) {
            fail("publicURL", "https-url", problem)
        }
        checkCredentials(spec.credentials, required: true, known: credentialSets, fail: fail)
        spec.name = "s3://\(spec.bucket ?? "")/\(spec.prefix ?? "")"
    }

    private static func checkPurge(
        _ spec: inout TargetSpec, credentialSets: Set<String>, fail: (String, String, String) -> Void
    ) {
        let insecure = spec.insecure ?? false
        switch spec.provider {
        case .cloudfront?:
            let id = spec.distributionID ?? ""
            if !isToken(id, allowed: "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", max: 64) {
                fail(
                    "distributionID", "distribution-id", "a CloudFront distribution ID is upper-case letters and digits"
                )
            }
            if let endpoint = spec.endpoint, let problem = urlProblem(endpoint, insecure: insecure, pathAllowed: false)
            {
                fail("endpoint", "https-url", problem)
            }
            checkCredentials(spec.credentials, required: true, known: credentialSets, fail: fail)
            spec.name = "cloudfront:\(id)"
        case .cloudflare?:
            let zone = spec.zoneID ?? ""
            if !isToken(zone, allowed: "abcdefABCDEF0123456789", max: 64) {
                fail("zoneID", "zone-id", "a Cloudflare zone ID is the zone's hexadecimal identifier")
            }
            if let endpoint = spec.endpoint, let problem = urlProblem(endpoint, insecure: insecure, pathAllowed: true) {
                fail("endpoint", "https-url", problem)
            }
            checkCredentials(spec.credentials, required: true, known: credentialSets, fail: fail)
            spec.name = "cloudflare:\(zone)"
        case .http?:
            let url = spec.url ?? ""
            if let problem = urlProblem(url, insecure: insecure, pathAllowed: true) {
                fail("url", "https-url", problem)
            }
            spec.method = (spec.method ?? "PURGE").uppercased()
            if spec.method != "PURGE" && spec.method != "POST" {
                fail("method", "purge-method", "an HTTP purge is PURGE (per file) or POST (one request)")
            }
            checkCredentials(spec.credentials, required: false, known: credentialSets, fail: fail)
            spec.name = "http:\(url)"
        case nil:
            fail("provider", "required", "a purge names its provider: cloudfront, cloudflare or http")
        }
        if let url = spec.publicURL, let problem = urlProblem(url, insecure: false, pathAllowed: false) {
            fail("publicURL", "https-url", problem)
        }
    }

    private static func checkCredentials(
        _ name: String?, required: Bool, known: Set<String>, fail: (String, String, String) -> Void
    ) {
        guard let name else {
            if required { fail("credentials", "required", "the target names a credential set of this server") }
            return
        }
        if !known.contains(name) {
            fail(
                "credentials", "unknown-credentials",
                "this server has no credential set \(name) (it has: \(known.sorted().joined(separator: ", ")))")
        }
    }

    /// S3's bucket naming rules: what the store itself would refuse.
    package static func bucketProblem(_ bucket: String) -> String? {
        guard (3...63).contains(bucket.utf8.count) else { return "a bucket name is 3 to 63 characters" }
        guard isToken(bucket, allowed: "abcdefghijklmnopqrstuvwxyz0123456789.-", max: 63) else {
            return "a bucket name is lower-case letters, digits, dots and hyphens"
        }
        guard let first = bucket.first, let last = bucket.last, first.isLetter || first.isNumber,
            last.isLetter || last.isNumber
        else { return "a bucket name begins and ends with a letter or a digit" }
        if bucket.contains("..") { return "a bucket name has no two adjacent dots" }
        if bucket.split(separator: ".").count == 4 && bucket.split(separator: ".").allSatisfy({ UInt8($0) != nil }) {
            return "a bucket name is not an IP address"
        }
        if bucket.hasPrefix("xn--") || bucket.hasPrefix("sthree-") || bucket.hasSuffix("-s3alias")
            || bucket.hasSuffix("--ol-s3")
        {
            return "a bucket name does not use S3's reserved prefixes and suffixes"
        }
        return nil
    }

    /// A key prefix is a plain relative path: no `..`, no leading `/`, no control characters.
    package static func prefixProblem(_ prefix: String) -> String? {
        if prefix.utf8.count > 512 { return "a key prefix is at most 512 bytes" }
        if prefix.hasPrefix("/") { return "a key prefix does not begin with /" }
        if prefix.split(separator: "/", omittingEmptySubsequences: false).contains(where: { $0 == ".." || $0 == "." }) {
            return "a key prefix has no . or .. segment"
        }
        if prefix.contains("//") { return "a key prefix has no empty segment" }
        if prefix.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "a key prefix has no control characters"
        }
        return nil
    }

    /// An absolute https URL (http only with `insecure`), with no credentials, query or fragment.
    package static func urlProblem(_ text: String, insecure: Bool, pathAllowed: Bool) -> String? {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), let host = url.host,
            !host.isEmpty
        else { return "\(text) is not an absolute URL" }
        guard scheme == "https" || (scheme == "http" && insecure) else {
            return insecure ? "the URL is https or http" : "the URL is https (plain http only with insecure: true)"
        }
        // A credential goes out with every request: in clear only to this machine (issue 49).
        if scheme == "http" && !isLoopback(host) {
            return "plain http (insecure: true) is only for localhost or a loopback address; \(host) needs https"
        }
        if url.user != nil || url.password != nil { return "the URL carries no credentials: name a credential set" }
        if url.query != nil || url.fragment != nil { return "the URL has no query or fragment" }
        if !pathAllowed && !(url.path.isEmpty || url.path == "/") { return "the URL has no path" }
        if OutboundURL.hasControlCharacter(text) { return "the URL has no control characters" }
        return nil
    }

    /// `localhost`, or a literal 127.0.0.0/8 or ::1 address (URLComponents keeps an IPv6 host's brackets).
    package static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if bare.lowercased() == "localhost" || bare == "::1" || bare == "0:0:0:0:0:0:0:1" { return true }
        let octets = bare.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets.first == "127"
            && octets.allSatisfy { $0.count <= 3 && !$0.isEmpty && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }

    private static func isToken(_ text: String, allowed: String, max: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= max && text.allSatisfy { allowed.contains($0) }
    }
}
