import AASAStore
import AASATestSupport
import Foundation
import HTTPTypes
import Logging
import PostgresNIO
import Testing

@testable import AASAKernel
@testable import AASAOutbound
@testable import AASARules
@testable import AASAServer
@testable import AASAServices

/// Issue 38: publishing to S3-compatible storage and CDN purges, against real servers: moto
/// (S3, STS, IAM, CloudFront; SigV4 verified), read back with boto3; Cloudflare's purge API, an
/// HTTP purge and the edge as a TLS stand-in (Tests/Support/aasa-origin.py) with the test CA.
/// Serialized: each test starts a moto and runs boto3 in child processes; one at a time keeps the
/// suite from taking the cores the deadline tests of other suites measure against.
@Suite(.serialized) struct ObjectTargetTests {
    static let ios = "ABCDE12345.com.shop.app"
    static let android = "com.shop.app"
    static let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    static let cloudflareToken = "cf-secret-token-\(UUID().uuidString)"
    static let zone = "0123456789abcdef0123456789abcdef"

    /// The credential sets aasad is given: the moto user's keys, the same key with a wrong
    /// secret, and Cloudflare's bearer token.
    static func credentialsFile(_ moto: Moto) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString).json").path
        let sets: [String: [String: String]] = [
            "moto": ["accessKeyID": moto.keys.id, "secretAccessKey": moto.keys.secret],
            "wrong": ["accessKeyID": moto.keys.id, "secretAccessKey": "not-the-secret"],
            "cf": ["bearerToken": cloudflareToken],
        ]
        try JSONSerialization.data(withJSONObject: sets).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// A team with an iOS and an Android app, each with a rule on shop.test, not yet published.
    static func setUp(_ w: TestWorld) async throws {
        try #require(try await w.createTeam("shop").status == 201)
        for body: [String: Any] in [
            ["appID": ios], ["appID": android, "platform": "android", "fingerprints": [fingerprint]],
        ] {
            try #require(try await w.call(.post, "/v1/teams/shop/apps", token: w.adminToken, json: body).status == 201)
        }
        try #require(
            try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test"]).status == 201)
        try #require(
            try await w.call(
                .put, "/v1/domains/shop.test/grants/shop", token: w.adminToken, json: ["pathPrefixes": ["/"]]
            ).status == 200)
        for app in [ios, android] {
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/apps/\(app)/rules", token: w.adminToken,
                    json: ["rules": [["/": "/a/*"]]]
                ).status == 200)
        }
    }

    static func s3Target(_ moto: Moto, bucket: String = "aasa-files", credentials: String = "moto", edge: Int? = nil)
        -> [String: Any]
    {
        var target: [String: Any] = [
            "kind": "s3", "bucket": bucket, "prefix": "sites/shop", "endpoint": moto.endpoint, "insecure": true,
            "credentials": credentials, "cacheControl": "max-age=300",
        ]
        if let edge { target["publicURL"] = "https://edge.test:\(edge)" }
        return target
    }

    static func configure(
        _ origin: ProbeTests.Origin?, _ credentials: String?, environment: [String: String] = [:]
    ) -> @Sendable (inout AppConfig) -> Void {
        { config in
            origin?.configure(&config)
            config.credentialsFile = credentials
            config.credentialEnvironment = environment
        }
    }

    static func publish(_ w: TestWorld, reason: String = "test") async throws -> [[String: Any]] {
        let reply = try await w.call(
            .post, "/v1/domains/shop.test/publish", token: w.adminToken, json: ["reason": reason])
        try #require(reply.status == 201 || reply.status == 200, "\(reply.text)")
        return reply.object["objectTargets"] as? [[String: Any]] ?? []
    }

    static func steps(_ outcome: [String: Any]) -> [String] {
        (outcome["steps"] as? [[String: Any]] ?? []).map {
            let ok = $0["ok"] as? Bool == true ? "ok" : "FAILED"
            return "\($0["step"] as? String ?? "") \($0["file"] as? String ?? "-") \(ok)"
        }
    }

    static func reconciler(_ w: TestWorld, credentials: String, origin: ProbeTests.Origin) async throws
        -> PublishingService.Summary
    {
        try await w.withDatabase { database in
            var fetch = FetchConfig()
            origin.configure(fetch: &fetch)
            let objects = try ObjectPublishing.configured(credentialsFile: credentials, environment: [:], fetch: fetch)
            return try await PublishingService(database: database, webRootBases: [], objects: objects).reconcileAll(
                logger: Logger(label: "test"))
        }
    }

    @Test func aPublishWritesEachObjectReadsItBackPurgesAndSeesTheEdgeServeIt() async throws {
        let moto = try await offPool { try Moto(buckets: ["aasa-files"]) }
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "edge.test"]) }
        let credentials = try Self.credentialsFile(moto)
        try origin.behave([
            "edge.test": [
                "mode": "bucket", "endpoint": moto.endpoint, "bucket": "aasa-files", "prefix": "sites/shop/",
                "key": moto.keys.id, "secret": moto.keys.secret,
            ],
            "cfToken": Self.cloudflareToken,
        ])
        try await TestWorld.run(configure: Self.configure(origin, credentials)) { w in
            try await Self.setUp(w)
            let put = try await w.call(
                .put, "/v1/domains/shop.test/targets", token: w.adminToken,
                json: [
                    "targets": [
                        Self.s3Target(moto, edge: origin.port),
                        [
                            "kind": "purge", "provider": "cloudfront", "distributionID": moto.distributionID,
                            "endpoint": moto.endpoint, "insecure": true, "credentials": "moto",
                            "publicURL": "https://edge.test:\(origin.port)",
                        ],
                        [
                            "kind": "purge", "provider": "cloudflare", "zoneID": Self.zone,
                            "endpoint": "https://edge.test:\(origin.port)/client/v4", "credentials": "cf",
                            "publicURL": "https://edge.test:\(origin.port)",
                        ],
                        [
                            "kind": "purge", "provider": "http", "url": "https://edge.test:\(origin.port)",
                            "publicURL": "https://edge.test:\(origin.port)",
                        ],
                    ]
                ])
            #expect(put.status == 200, "\(put.text)")

            let outcomes = try await Self.publish(w)
            try #require(outcomes.count == 4, "\(outcomes)")
            #expect(outcomes.allSatisfy { $0["ok"] as? Bool == true }, "\(outcomes)")
            // assetlinks.json first, then the AASA; then each read back.
            #expect(
                Self.steps(outcomes[0]) == [
                    "written assetlinks.json ok", "written apple-app-site-association ok",
                    "verified assetlinks.json ok", "verified apple-app-site-association ok",
                ])
            #expect(outcomes[1...].allSatisfy { Self.steps($0) == ["purged - ok"] })
            for outcome in outcomes {
                let edge = outcome["edge"] as? [[String: Any]] ?? []
                #expect(edge.count == 2 && edge.allSatisfy { $0["servesRevision"] as? Bool == true }, "\(edge)")
            }

            // Read back with boto3: the bytes served, the content type, the cache policy, the revision.
            let served = try await w.call(.get, "/v1/domains/shop.test/revisions/1/file", token: w.adminToken)
            let object = try await offPool {
                try moto.object("aasa-files", "sites/shop/.well-known/apple-app-site-association")
            }
            #expect(object.bytes == served.body)
            #expect(object.contentType == "application/json" && object.cacheControl == "max-age=300")
            #expect(object.metadata["aasa-revision"] == "1")
            let links = try await offPool { try moto.object("aasa-files", "sites/shop/.well-known/assetlinks.json") }
            #expect(
                links.bytes
                    == (try await w.call(
                        .get, "/v1/domains/shop.test/assetlinks/revisions/1/file", token: w.adminToken))
                    .body)

            // CloudFront's invalidation, listed back from moto; Cloudflare's and the HTTP purge, from the stand-in.
            let invalidations = try await offPool {
                try moto.admin(["invalidations", moto.keys.id, moto.keys.secret, moto.distributionID])
            }
            let invalidated = try JSONSerialization.jsonObject(with: invalidations) as? [String] ?? []
            #expect(
                invalidated.count == 1
                    && ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"].allSatisfy {
                        invalidated[0].contains($0)
                    }, "\(invalidated)")
            let purges = origin.purges
            let cloudflare = purges.first { $0["method"] as? String == "POST" }
            #expect(cloudflare?["auth"] as? String == "Bearer \(Self.cloudflareToken)")
            #expect(
                (cloudflare?["body"] as? String)?.contains("https://shop.test/.well-known/apple-app-site-association")
                    == true)
            #expect(
                Set(purges.filter { $0["method"] as? String == "PURGE" }.compactMap { $0["path"] as? String })
                    == ["/.well-known/apple-app-site-association", "/.well-known/assetlinks.json"])

            // GET …/targets: the web roots (none) and each target with its last outcome.
            let targets = try await w.call(.get, "/v1/domains/shop.test/targets", token: w.adminToken)
            let listed = targets.object["targets"] as? [[String: Any]] ?? []
            try #require(listed.count == 4, "\(targets.text)")
            #expect(
                (listed[0]["target"] as? [String: Any])?["name"] as? String == "s3://aasa-files/sites/shop/")
            #expect((listed[0]["last"] as? [String: Any])?["ok"] as? Bool == true)

            // No secret anywhere aasad writes: targets, outcomes, audit.
            let stored = try await w.withDatabase { database in
                try await database.read(logger: Logger(label: "test")) { session in
                    try await session.all(
                        """
                        SELECT coalesce((SELECT string_agg(spec::text, ' ') FROM object_targets), '') || \
                        coalesce((SELECT string_agg(outcome::text, ' ') FROM object_target_outcomes), '') || \
                        coalesce((SELECT string_agg(after::text || before::text, ' ') FROM audit_events), '')
                        """, as: String.self)
                }
            }
            #expect(!stored.joined().isEmpty)
            for secret in [moto.keys.secret, Self.cloudflareToken] { #expect(!stored.joined().contains(secret)) }
        }
    }

    /// The edge serving the old revision, HTML with 200, a 301, and binary/octet-stream: each named.
    @Test func theEdgeCheckNamesWhatTheEdgeServesInstead() async throws {
        let moto = try await offPool { try Moto(buckets: ["aasa-files"]) }
        let edges = ["old.test", "html.test", "moved.test", "octet.test"]
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test"] + edges) }
        let credentials = try Self.credentialsFile(moto)
        try await TestWorld.run(configure: Self.configure(origin, credentials)) { w in
            try await Self.setUp(w)
            _ = try await Self.publish(w, reason: "first")
            let first = try await w.call(.get, "/v1/domains/shop.test/revisions/1/file", token: w.adminToken).body
            for host in edges { try origin.serve(host, first) }
            try origin.behave([
                "html.test": ["mode": "html"], "moved.test": ["mode": "redirect"], "octet.test": ["mode": "octet"],
            ])
            var targets: [[String: Any]] = []
            for host in edges {
                var target = Self.s3Target(moto)
                target["prefix"] = host
                target["publicURL"] = "https://\(host):\(origin.port)"
                targets.append(target)
            }
            #expect(
                try await w.call(.put, "/v1/domains/shop.test/targets", token: w.adminToken, json: ["targets": targets])
                    .status == 200)
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/apps/\(Self.ios)/rules", token: w.adminToken,
                    json: ["rules": [["/": "/b/*"]]]
                ).status == 200)
            let outcomes = try await Self.publish(w, reason: "second")
            try #require(outcomes.count == 4, "\(outcomes)")
            func aasaEdge(_ k: Int) -> [String: Any] {
                (outcomes[k]["edge"] as? [[String: Any]] ?? []).first {
                    $0["file"] as? String == "apple-app-site-association"
                } ?? [:]
            }
            func codes(_ k: Int) -> [String] {
                (aasaEdge(k)["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            }
            // The writes succeeded everywhere; the edge is another matter, named per case.
            #expect(outcomes.allSatisfy { $0["ok"] as? Bool == true })
            #expect(aasaEdge(0)["servesRevision"] as? Bool == false && aasaEdge(0)["revision"] as? Int == 1)
            #expect(codes(0) == ["stale-revision"], "\(outcomes[0])")
            #expect(codes(1).contains("content-type"), "\(outcomes[1])")
            #expect(codes(2) == ["redirect"], "\(outcomes[2])")
            #expect(codes(3).contains("content-type") && aasaEdge(3)["servesRevision"] as? Bool == false)
            let browser = ConsoleTests.Browser(w)
            _ = try await browser.signIn(w.adminToken)
            let page = try await browser.get("/console/domains/shop.test").text
            #expect(page.contains("published revision 2"), "\(page)")
            #expect(
                page.contains(
                    "edge: https://old.test:\(origin.port)/.well-known/apple-app-site-association serves stale-revision"
                ))
        }
    }

    /// Wrong credentials, a bucket that does not exist, and a refusal after assetlinks.json was
    /// written but before the AASA: the revision is created, the target failed and named per file,
    /// and a later reconciliation completes it. An object edited behind aasad's back is rewritten
    /// and reported as drift.
    @Test func faultsAreReportedPerTargetAndReconciliationFinishesThem() async throws {
        let moto = try await offPool { try Moto(buckets: ["aasa-files"]) }
        let origin = try await offPool { try ProbeTests.Origin(hosts: ["shop.test", "edge.test"]) }
        let credentials = try Self.credentialsFile(moto)
        try await TestWorld.run(configure: Self.configure(origin, credentials)) { w in
            try await Self.setUp(w)
            #expect(
                try await w.call(
                    .put, "/v1/domains/shop.test/targets", token: w.adminToken,
                    json: [
                        "targets": [
                            Self.s3Target(moto, credentials: "wrong", edge: origin.port),
                            Self.s3Target(moto, bucket: "not-yet-made", edge: origin.port),
                        ]
                    ]
                ).status == 200)
            let outcomes = try await Self.publish(w, reason: "faults")
            try #require(outcomes.count == 2, "\(outcomes)")
            #expect(outcomes.allSatisfy { $0["ok"] as? Bool == false })
            #expect((outcomes[0]["error"] as? String)?.contains("SignatureDoesNotMatch") == true, "\(outcomes[0])")
            #expect((outcomes[1]["error"] as? String)?.contains("NoSuchBucket") == true, "\(outcomes[1])")
            #expect(!(outcomes[0]["error"] as? String ?? "").contains("not-the-secret"))
            let revisions = try await w.call(.get, "/v1/domains/shop.test/revisions", token: w.adminToken)
            #expect((revisions.object["items"] as? [[String: Any]])?.count == 1)
            // The console's domain page says the same, target by target.
            let browser = ConsoleTests.Browser(w)
            _ = try await browser.signIn(w.adminToken)
            let page = try await browser.get("/console/domains/shop.test").text
            #expect(page.contains("s3://aasa-files/sites/shop/</code>: <span class=\"bad\">failed: "), "\(page)")
            #expect(page.contains("SignatureDoesNotMatch") && page.contains("NoSuchBucket"))

            // The bucket is made; only the right credentials stay: reconciliation completes the rest.
            _ = try await offPool { try moto.admin(["mkbucket", moto.keys.id, moto.keys.secret, "not-yet-made"]) }
            #expect(
                try await w.call(
                    .put, "/v1/domains/shop.test/targets", token: w.adminToken,
                    json: ["targets": [Self.s3Target(moto, bucket: "not-yet-made", edge: origin.port)]]
                ).status == 200)
            // A refusal partway: PutObject on the AASA's key denied, assetlinks.json's allowed.
            let aasaKey = "not-yet-made/sites/shop/.well-known/apple-app-site-association"
            _ = try await offPool { try moto.admin(["deny", moto.keys.id, moto.keys.secret, aasaKey]) }
            let partway = try await Self.publish(w, reason: "partway")
            try #require(!partway.isEmpty)
            #expect(
                Self.steps(partway[0]) == ["written assetlinks.json ok", "written apple-app-site-association FAILED"],
                "\(partway)")
            _ = try await offPool { try moto.admin(["deny", moto.keys.id, moto.keys.secret, ""]) }
            let summary = try await Self.reconciler(w, credentials: credentials, origin: origin)
            #expect(summary.rewritten == ["shop.test s3://not-yet-made/sites/shop/"], "\(summary)")
            let aasa = try await offPool {
                try moto.object("not-yet-made", "sites/shop/.well-known/apple-app-site-association")
            }
            let served = try await w.call(.get, "/v1/domains/shop.test/revisions/1/file", token: w.adminToken).body
            #expect(aasa.bytes == served)

            // Edited behind aasad's back (other bytes, the type an upload tool guesses): drift, rewritten.
            _ = try await offPool {
                try moto.admin([
                    "put", moto.keys.id, moto.keys.secret, "not-yet-made",
                    "sites/shop/.well-known/apple-app-site-association", "7b7d", "binary/octet-stream",
                ])
            }
            let again = try await Self.reconciler(w, credentials: credentials, origin: origin)
            #expect(again.rewritten == ["shop.test s3://not-yet-made/sites/shop/"], "\(again)")
            let restored = try await offPool {
                try moto.object("not-yet-made", "sites/shop/.well-known/apple-app-site-association")
            }
            #expect(restored.bytes == served && restored.contentType == "application/json")
            let audit = try await w.call(.get, "/v1/audit?domain=shop.test", token: w.adminToken)
            let drift = (audit.object["items"] as? [[String: Any]] ?? []).filter {
                $0["action"] as? String == "publish.reconcile" && $0["entityType"] as? String == "object-target"
            }
            #expect(drift.contains { ($0["before"] as? String)?.contains("binary/octet-stream") == true }, "\(drift)")
            // A clean pass rewrites nothing.
            #expect(try await Self.reconciler(w, credentials: credentials, origin: origin).rewritten.isEmpty)

            // A rollback publishes through the same path: the bucket holds revision 1 again.
            try #require(
                try await w.call(
                    .put, "/v1/domains/shop.test/apps/\(Self.ios)/rules", token: w.adminToken,
                    json: ["rules": [["/": "/b/*"]]]
                ).status == 200)
            _ = try await Self.publish(w, reason: "second")
            let rollback = try await w.call(
                .post, "/v1/domains/shop.test/revisions/1/rollback", token: w.adminToken, json: ["reason": "back"])
            #expect(rollback.status == 201, "\(rollback.text)")
            #expect(
                (rollback.object["objectTargets"] as? [[String: Any]])?.first?["ok"] as? Bool == true,
                "\(rollback.text)")
            let rolledBack = try await offPool {
                try moto.object("not-yet-made", "sites/shop/.well-known/apple-app-site-association")
            }
            #expect(rolledBack.bytes == served && rolledBack.metadata["aasa-revision"] == "3")
        }
    }

    /// Each refusal is a 422 naming the field and the rule, and nothing is stored.
    @Test func badTargetsAreRefusedFieldByFieldAndNothingIsStored() async throws {
        try await TestWorld.run(configure: Self.configure(nil, try Self.emptyCredentials())) { w in
            try #require(
                try await w.call(.post, "/v1/domains", token: w.adminToken, json: ["host": "shop.test"]).status == 201)
            let cases: [([String: Any], String, String)] = [
                (
                    ["kind": "s3", "bucket": "aasa-files", "endpoint": "http://s3.example", "credentials": "set"],
                    "/targets/0/endpoint", "https-url"
                ),
                (["kind": "s3", "bucket": "Bad_Bucket", "credentials": "set"], "/targets/0/bucket", "bucket-name"),
                (
                    ["kind": "s3", "bucket": "aasa-files", "prefix": "a/../b", "credentials": "set"],
                    "/targets/0/prefix", "key-prefix"
                ),
                (
                    ["kind": "s3", "bucket": "aasa-files", "credentials": "nobody"], "/targets/0/credentials",
                    "unknown-credentials"
                ),
                (
                    ["kind": "purge", "provider": "cloudflare", "zoneID": "abc", "credentials": "nobody"],
                    "/targets/0/credentials", "unknown-credentials"
                ),
            ]
            for (target, field, rule) in cases {
                let reply = try await w.call(
                    .put, "/v1/domains/shop.test/targets", token: w.adminToken, json: ["targets": [target]])
                #expect(reply.status == 422, "\(target): \(reply.text)")
                #expect(reply.problemFields.contains(field) && reply.problemRules.contains(rule), "\(reply.text)")
            }
            let listed = try await w.call(.get, "/v1/domains/shop.test/targets", token: w.adminToken)
            #expect((listed.object["targets"] as? [Any])?.isEmpty == true, "\(listed.text)")
            // A team token may not set targets.
            try #require(try await w.createTeam("shop").status == 201)
            let team = try await w.teamToken("shop", scopes: ["write"]).secret
            #expect(
                try await w.call(.put, "/v1/domains/shop.test/targets", token: team, json: ["targets": []]).status
                    == 403)
        }
    }

    static func emptyCredentials() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("creds-\(UUID().uuidString).json").path
        try Data(#"{"set": {"accessKeyID": "AKIAEXAMPLE", "secretAccessKey": "x"}}"#.utf8).write(
            to: URL(fileURLWithPath: path))
        return path
    }

    /// `AWS_WEB_IDENTITY_TOKEN_FILE` and `AWS_ROLE_ARN`: STS `AssumeRoleWithWebIdentity` against
    /// moto, then a write with the temporary keys (moto answers this call only with its signature
    /// checks off: with them on it wants an Authorization header even here).
    @Test func webIdentityAssumesTheRoleAndWritesWithTemporaryKeys() async throws {
        let moto = try await offPool { try Moto(buckets: ["aasa-files"], verifySignatures: false) }
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("token-\(UUID().uuidString)").path
        try Data("eyJhbGciOiJub25lIn0.eyJzdWIiOiJyZXBvOmFjbWUvc2hvcCJ9.".utf8).write(
            to: URL(fileURLWithPath: tokenFile))
        let environment = [
            "AWS_WEB_IDENTITY_TOKEN_FILE": tokenFile, "AWS_ROLE_ARN": moto.roleARN,
            "AWS_ENDPOINT_URL_STS": moto.endpoint,
        ]
        let sets = try CredentialSets.load(file: nil, environment: environment, http: ObjectStoreHTTP(caFile: nil))
        let keys = try await sets.awsKeys("default", region: "us-east-1")
        #expect(keys.sessionToken != nil && keys.accessKeyID != moto.keys.id && keys.expiration != nil)
        #expect(!"\(keys)".contains(keys.secretAccessKey))
        try await TestWorld.run(configure: Self.configure(nil, nil, environment: environment)) { w in
            try await Self.setUp(w)
            var target = Self.s3Target(moto, credentials: "default")
            target["prefix"] = "web-identity"
            #expect(
                try await w.call(
                    .put, "/v1/domains/shop.test/targets", token: w.adminToken, json: ["targets": [target]]
                )
                .status == 200)
            let outcomes = try await Self.publish(w)
            #expect(outcomes.first?["ok"] as? Bool == true, "\(outcomes)")
            let object = try await offPool {
                try moto.object("aasa-files", "web-identity/.well-known/apple-app-site-association")
            }
            #expect(object.contentType == "application/json")
        }
    }
}

extension ProbeTests.Origin {
    /// What the purge stand-ins recorded.
    var purges: [[String: Any]] {
        ((try? String(contentsOfFile: dir + "/purges.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").compactMap
        {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }
}
