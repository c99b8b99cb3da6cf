import AASATestSupport
import Foundation
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServices

/// The signer, differentially: botocore's `S3SigV4Auth` and `SigV4Auth` (Tests/Support/
/// sigv4-botocore.py) sign the same requests, and both `Authorization` headers must be equal.
@Suite struct SigV4Tests {
    static let keys = AWSKeys(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    static let session = AWSKeys(
        accessKeyID: "ASIAEXAMPLE", secretAccessKey: "secret/with+signs", sessionToken: "FwoGZXIvYXdzE//token==")

    struct Case {
        var request: SigV4.Request
        var keys: AWSKeys
        var service: String
        var region: String
    }

    static var cases: [Case] {
        let body = Array(#"{"applinks":{"details":[]}}"#.utf8)
        let put: [(String, String)] = [
            ("Content-Type", "application/json"), ("Cache-Control", "max-age=3600"),
            ("Content-MD5", "1B2M2Y8AsgTpgAmY7PhCfg=="), ("x-amz-meta-aasa-revision", "7"),
        ]
        func s3(_ path: String, method: String = "PUT", query: [(String, String)] = [], keys: AWSKeys = keys)
            -> Case
        {
            Case(
                request: SigV4.Request(
                    method: method, scheme: "https", authority: "aasa-files.s3.eu-west-1.amazonaws.com", path: path,
                    query: query, headers: method == "PUT" ? put : [], body: method == "PUT" ? body : []),
                keys: keys, service: "s3", region: "eu-west-1")
        }
        return [
            s3("/.well-known/apple-app-site-association"),
            s3("/sites/shop/.well-known/assetlinks.json", method: "HEAD"),
            s3("/a key with spaces/and+plus/x.json"),
            s3("/unicode/é/ü/日本.json"),
            s3("/reserved/!$&'()*,;=:@/x", method: "GET"),
            s3("/", method: "GET", query: [("prefix", "sites/a b"), ("list-type", "2"), ("delimiter", "/")]),
            s3("/.well-known/apple-app-site-association", keys: session),
            s3("/q", method: "GET", query: [("b", "2"), ("a", "z"), ("a", "y"), ("empty", "")]),
            Case(
                request: SigV4.Request(
                    method: "POST", scheme: "http", authority: "127.0.0.1:5000", path: "/bucket/key", headers: put,
                    body: body),
                keys: keys, service: "s3", region: "us-east-1"),
            Case(
                request: SigV4.Request(
                    method: "POST", scheme: "https", authority: "cloudfront.amazonaws.com",
                    path: "/2020-05-31/distribution/E2EXAMPLE/invalidation", headers: [("Content-Type", "text/xml")],
                    body: Array("<InvalidationBatch/>".utf8)),
                keys: session, service: "cloudfront", region: "us-east-1"),
            Case(
                request: SigV4.Request(
                    method: "POST", scheme: "https", authority: "sts.amazonaws.com", path: "/a b/ü",
                    headers: [("Content-Type", "application/x-www-form-urlencoded"), ("X-Spaced", "  a   b  ")],
                    body: Array("Action=GetCallerIdentity&Version=2011-06-15".utf8)),
                keys: keys, service: "sts", region: "us-east-1"),
        ]
    }

    @Test func everyAuthorizationHeaderIsBotocores() throws {
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        let stamp = SigV4.timestamp(date)
        var requests: [[String: Any]] = []
        var ours: [String] = []
        for c in Self.cases {
            let signed = SigV4(credentials: c.keys, region: c.region, service: c.service).sign(c.request, at: date)
            ours.append(signed.first { $0.0 == "authorization" }?.1 ?? "")
            var entry: [String: Any] = [
                "method": c.request.method, "url": c.request.url,
                // Every header sent but the authorization itself (botocore adds the date and the token).
                "headers": signed.filter { !["authorization", "x-amz-date", "x-amz-security-token"].contains($0.0) }
                    .map { [$0.0, $0.1] },
                "body": c.request.body.map { String(format: "%02x", $0) }.joined(), "service": c.service,
                "region": c.region, "accessKey": c.keys.accessKeyID, "secretKey": c.keys.secretAccessKey,
                "timestamp": stamp,
            ]
            if let token = c.keys.sessionToken { entry["token"] = token }
            requests.append(entry)
        }
        let result = try Spawn.run(
            "/usr/bin/env", ["python3", TestDatabase.repositoryRoot + "/Tests/Support/sigv4-botocore.py"],
            environment: ProcessInfo.processInfo.environment,
            stdin: try JSONSerialization.data(withJSONObject: requests))
        try #require(result.status == 0, "\(String(decoding: result.err, as: UTF8.self))")
        let theirs = try JSONSerialization.jsonObject(with: result.out) as? [String] ?? []
        try #require(theirs.count == ours.count)
        for (k, (mine, botocore)) in zip(ours, theirs).enumerated() {
            #expect(mine == botocore, "case \(k): \(Self.cases[k].request.url)")
        }
    }

    /// A wrong secret signs differently (the differential test could not pass with a constant).
    @Test func theSignatureDependsOnTheSecret() {
        let c = Self.cases[0]
        let date = Date(timeIntervalSince1970: 1_795_000_000)
        var other = c.keys
        other.secretAccessKey += "x"
        let a = SigV4(credentials: c.keys, region: c.region, service: "s3").sign(c.request, at: date)
        let b = SigV4(credentials: other, region: c.region, service: "s3").sign(c.request, at: date)
        #expect(a.last?.1 != b.last?.1)
    }
}
