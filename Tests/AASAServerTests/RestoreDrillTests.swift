import AASAModel
import AASAStore
import AASATestSupport
import Foundation
import Logging
import PostgresNIO
import Testing

/// The README's backup and restore, as a drill: a populated database dumped with `pg_dump -Fc` and
/// restored with `pg_restore` into a new one. Every token still works, every row (revisions, audit,
/// tokens' hashes) is there, the served files are byte-identical, and `aasad publish --all` rebuilds
/// an emptied web root byte for byte from the restored database alone.
@Suite struct RestoreDrillTests {
    /// The server's own client tools: pg_dump refuses a server newer than itself.
    static func tool(_ name: String) throws -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let newest = versions.compactMap(Int.init).max()
        let path = newest.map { "/usr/lib/postgresql/\($0)/bin/\(name)" } ?? "/usr/bin/\(name)"
        return try #require(FileManager.default.isExecutableFile(atPath: path) ? path : nil, "no \(name)")
    }

    static func run(_ path: String, _ arguments: [String]) async throws -> String {
        let environment = ProcessInfo.processInfo.environment
        let result = try await offPool { try Spawn.run(path, arguments, environment: environment) }
        let output = String(decoding: result.out + result.err, as: UTF8.self)
        #expect(result.status == 0, "\(path) \(arguments): \(output)")
        return output
    }

    static func connection(_ url: DatabaseURL) -> [String] {
        ["-h", url.host, "-p", String(url.port), "-U", url.username, "-d", url.database]
    }

    /// The shipped backup unit's command (deploy/systemd/aasad-backup.service), run for real with a
    /// directory of the test's in place of /var/lib/aasad-backups; returns the dump it wrote.
    static func backUpAsTheShippedUnitDoes(_ url: DatabaseURL, into directory: String) async throws -> String {
        let unit = try String(
            contentsOfFile: TestDatabase.repositoryRoot + "/deploy/systemd/aasad-backup.service", encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=/bin/sh -c '") })
        let script = line.drop { $0 != "'" }.dropFirst().dropLast()
            .replacingOccurrences(of: "%%", with: "%")
            .replacingOccurrences(of: "/var/lib/aasad-backups", with: directory)
        var environment = OneShotAasad.environment(url)
        // The server's own client tools first: Debian's /usr/bin/pg_dump may pick another version.
        environment["PATH"] = try tool("pg_dump").replacingOccurrences(of: "/pg_dump", with: "") + ":/usr/bin:/bin"
        let settings = environment
        let result = try await offPool { try Spawn.run("/bin/sh", ["-c", script], environment: settings) }
        #expect(result.status == 0, "\(String(decoding: result.out + result.err, as: UTF8.self))")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        #expect(!files.contains { $0.hasSuffix(".partial") }, "a partial dump was left: \(files)")
        let dump = try #require(files.first { $0.hasPrefix("aasa-") && $0.hasSuffix(".dump") }, "\(files)")
        return directory + "/" + dump
    }

    /// Every table's rows, as one digest per table: equal digests, equal contents.
    static func digests(_ url: DatabaseURL) async throws -> [String: String] {
        try await TestDatabase.shared.withClient(url: url) { db in
            try await db.read(logger: Logger(label: "t")) { session in
                let tables = try await session.all(
                    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1", as: String.self)
                var digests: [String: String] = [:]
                for table in tables {
                    // The names come from pg_tables, quoted as identifiers.
                    let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
                    let digest = "count(*) || ':' || coalesce(md5(string_agg(t::text, '|' ORDER BY t::text)), '')"
                    digests[table] = try await session.first(
                        PostgresQuery(unsafeSQL: "SELECT \(digest) FROM \(quoted) t"), as: String.self)
                }
                return digests
            }
        }
    }

    @Test func aDumpRestoredIntoANewDatabaseServesTheSameAndRebuildsTheWebRoot() async throws {
        try await TestDatabase.shared.withDatabase { source in
            let webRoot = try PublishingTests.tempDir()
            defer { try? FileManager.default.removeItem(atPath: webRoot) }
            let admin = try await WebhookProcessTests.admin(source)
            let original = try ServerProcess(database: source)
            try await original.start()
            try await ReplicaTests.setUp(original, admin: admin, webRoots: [webRoot])
            let created = try await Curl.call(
                "POST", original.baseURL + "/v1/teams/own/tokens", token: admin,
                json: #"{"name":"pipeline","scopes":["write"]}"#)
            #expect(created.status == 201)
            let teamToken = try #require(
                (try JSONSerialization.jsonObject(with: Data(created.body)) as? [String: Any])?["secret"] as? String)
            #expect(try await ReplicaTests.putRules(original, admin: teamToken, path: "/one/*") == 200)
            #expect(try await ReplicaTests.publish(original, admin: teamToken, reason: "first").status == 201)
            #expect(try await ReplicaTests.putRules(original, admin: teamToken, path: "/two/*") == 200)
            #expect(try await ReplicaTests.publish(original, admin: admin, reason: "second").status == 201)
            let served = try #require(try await ReplicaTests.served(original))
            let written = try #require(PublishingTests.file(webRoot))
            #expect(written == served)

            // The backup, as the shipped unit takes it, and the restore into a database of its own.
            let backups = try PublishingTests.tempDir()
            defer { try? FileManager.default.removeItem(atPath: backups) }
            let dump = try await Self.backUpAsTheShippedUnitDoes(source, into: backups)
            try await TestDatabase.shared.withDatabase(empty: true) { restored in
                _ = try await Self.run(
                    try Self.tool("pg_restore"), ["--no-owner", "--exit-on-error"] + Self.connection(restored) + [dump])

                let before = try await Self.digests(source)
                let after = try await Self.digests(restored)
                #expect(before.keys.contains("revisions") && before.keys.contains("audit_events"))
                #expect(before["revisions"]?.hasPrefix("2:") == true, "\(before["revisions"] ?? "")")
                #expect(after == before, "tables whose rows differ: \(before.keys.filter { before[$0] != after[$0] })")

                // aasad on the restored database: the same file, and every token still works.
                let standIn = try ServerProcess(database: restored)
                try await standIn.start()
                #expect(try await ReplicaTests.served(standIn) == served)
                for token in [admin, teamToken] {
                    let apps = try await Curl.call("GET", standIn.baseURL + "/v1/teams/own/apps", token: token)
                    #expect(apps.status == 200, "\(String(decoding: apps.body, as: UTF8.self))")
                }
                let audit = try await Curl.call("GET", standIn.baseURL + "/v1/audit", token: admin)
                #expect(audit.status == 200)
                #expect(String(decoding: audit.body, as: UTF8.self).contains("domain.publish"))

                // The web root is derived: emptied, it is rebuilt byte for byte from the database.
                _ = try await original.stopGracefully()
                try FileManager.default.removeItem(atPath: webRoot)
                try FileManager.default.createDirectory(atPath: webRoot, withIntermediateDirectories: true)
                let rebuilt = try await OneShotAasad.run(["publish", "--all"], on: restored)
                #expect(rebuilt.status == 0, "\(String(decoding: rebuilt.out + rebuilt.err, as: UTF8.self))")
                #expect(PublishingTests.file(webRoot) == written)
            }
        }
    }
}
