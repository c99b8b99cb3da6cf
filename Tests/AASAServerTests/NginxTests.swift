import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import AASATestSupport
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing

/// deploy/nginx as shipped (only ports and paths substituted), with Debian's nginx on loopback:
/// the static mode serves the published web root, the proxy mode forwards to aasad.
@Suite struct NginxTests {
    final class Nginx: @unchecked Sendable {
        let process = Process()
        let directory: String
        let port: Int

        init(site: String) throws {
            port = try FreePort.pick()
            directory = try PublishingTests.tempDir()
            try FileManager.default.createDirectory(atPath: directory + "/tmp", withIntermediateDirectories: true)
            let site = site.replacingOccurrences(of: "    listen [::]:80;\n", with: "")
                .replacingOccurrences(of: "listen 80;", with: "listen 127.0.0.1:\(port);")
            try site.write(toFile: directory + "/site.conf", atomically: true, encoding: .utf8)
            let temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map { "\($0)_temp_path \(directory)/tmp;" }
                .joined(separator: "\n  ")
            let main = """
                worker_processes 1;
                pid \(directory)/nginx.pid;
                error_log \(directory)/error.log;
                daemon off;
                events {}
                http {
                  access_log off;
                  \(temp)
                  include \(directory)/site.conf;
                }
                """
            try main.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-c", directory + "/nginx.conf", "-p", directory]
            process.standardError = FileHandle.nullDevice
        }

        func start() async throws {
            try process.launchSerialized()
            if try await eventually(
                every: .milliseconds(100), { (try? await Curl.get("http://127.0.0.1:\(port)/").status) != 0 })
            {
                return
            }
            Issue.record(
                "nginx did not start: \((try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? "")"
            )
        }

        deinit {
            // A process that never launched (nginx missing, or a start that threw) cannot be
            // terminated: Foundation traps, and the whole test process with it.
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    static func deployFile(_ name: String) throws -> String {
        try String(contentsOfFile: TestDatabase.repositoryRoot + "/deploy/nginx/" + name, encoding: .utf8)
    }

    @Test func staticAndProxyModesServeThePublishedFile() async throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx"),
            "install Debian's nginx (scripts/test does)")
        let root = try PublishingTests.tempDir()
        defer { try? FileManager.default.removeItem(atPath: root) }
        try await TestWorld.run(live: true) { w in
            let token = try await PublishingTests.setUp(w, webRoots: [root], legacy: true)
            // An Android app too, so the domain publishes assetlinks.json beside the AASA.
            try #require(
                try await w.call(
                    .post, "/v1/teams/own/apps", token: token,
                    json: [
                        "appID": "com.own.app", "platform": "android", "fingerprints": [AndroidTests.upload],
                    ]
                ).status == 201)
            try #require(
                try await w.call(
                    .put, "/v1/domains/example.com/apps/com.own.app/rules", token: token,
                    json: ["rules": [["/": "/shop/*"]]]
                ).status == 200)
            // A related origin, so the domain publishes /.well-known/webauthn as well.
            let related = try await w.call(
                .post, "/v1/domains/example.com/related-origins", token: w.adminToken,
                json: ["origin": "https://shop.example"])
            try #require(related.status == 201, "\(related.text)")
            #expect(
                try await w.call(.post, "/v1/domains/example.com/publish", token: token, json: ["reason": "nginx"])
                    .status == 201)
            let file = try await w.call(.get, "/v1/domains/example.com/revisions/1/file", token: token).body
            let assetLinks = try #require(
                FileManager.default.contents(atPath: root + "/.well-known/assetlinks.json").map { [UInt8]($0) })
            let relatedOrigins = try #require(
                FileManager.default.contents(atPath: root + "/.well-known/webauthn").map { [UInt8]($0) })

            let staticSite = try Self.deployFile("aasa-static.conf").replacingOccurrences(
                of: "/srv/aasa/example.com", with: root)
            let proxySite = try Self.deployFile("aasa-proxy.conf")
                .replacingOccurrences(
                    of: "server 127.0.0.1:8080;", with: "server 127.0.0.1:\(try #require(w.client.port));")
            let staticNginx = try Nginx(site: staticSite)
            let proxyNginx = try Nginx(site: proxySite)
            try await staticNginx.start()
            try await proxyNginx.start()

            for nginx in [staticNginx, proxyNginx] {
                let url = "http://127.0.0.1:\(nginx.port)/.well-known/apple-app-site-association"
                let reply = try await Curl.get(url, host: "example.com")
                #expect(reply.status == 200)
                #expect(reply.body == file)
                #expect(reply.headers["content-type"] == "application/json")
                #expect(try await Curl.get(url, host: "www.example.com").body == file)
                let unknown = try await Curl.get(url, host: "unknown.example")
                #expect(unknown.status == 404)
                #expect(unknown.headers["location"] == nil)
                let android = try await Curl.get(
                    "http://127.0.0.1:\(nginx.port)/.well-known/assetlinks.json", host: "www.example.com")
                #expect(android.status == 200)
                #expect(android.body == assetLinks)
                #expect(android.headers["content-type"] == "application/json")
                #expect(
                    try await Curl.get(
                        "http://127.0.0.1:\(nginx.port)/.well-known/assetlinks.json", host: "unknown.example"
                    ).status == 404)
                let webauthn = try await Curl.get(
                    "http://127.0.0.1:\(nginx.port)/.well-known/webauthn", host: "example.com")
                #expect(webauthn.status == 200 && webauthn.body == relatedOrigins, "\(webauthn.status)")
                #expect(webauthn.headers["content-type"] == "application/json")
            }
            let legacy = try await Curl.get(
                "http://127.0.0.1:\(staticNginx.port)/apple-app-site-association", host: "example.com")
            #expect(legacy.body == file)
            // Through the proxy, aasad's ETag and 304 pass unchanged.
            let proxied = "http://127.0.0.1:\(proxyNginx.port)/.well-known/apple-app-site-association"
            let etag = try #require(try await Curl.get(proxied, host: "example.com").headers["etag"])
            #expect(try await Curl.get(proxied, host: "example.com", headers: ["If-None-Match": etag]).status == 304)
        }
    }
}
