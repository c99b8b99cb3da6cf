import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import Logging
import PostgresNIO

// Passkeys (issue 52), two figures against baselines of the same run, on a durable PostgreSQL:
// - the relying party's readiness report for an RP ID with 20 client apps (10 iOS, 10 Android)
//   over 5 domains, against rendering the RP domain's draft alone (what the report must at least do);
// - publishing a domain whose draft has related origins (three files) against publishing the same
//   domain without them (two files), interleaved, one domain of each per step.
//
//   aasa-bench-passkeys --database-url postgres://… --migrations DIR [--reports 300] [--domains 200]

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), arguments.index(after: i) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: i)]
}
let reportCount = Int(option("--reports") ?? "300") ?? 300
let domainCount = Int(option("--domains") ?? "200") ?? 200
let serverURL = try DatabaseURL(option("--database-url") ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "")
let migrations = option("--migrations") ?? "migrations"
let logger: Logger = {
    var logger = Logger(label: "bench")
    logger.logLevel = .error
    return logger
}()

func withClient<T: Sendable>(_ url: DatabaseURL, _ body: @Sendable (Database) async throws -> T) async throws -> T {
    let client = PostgresClient(configuration: url.clientConfiguration(maximumConnections: 4), backgroundLogger: logger)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask {
            await client.run()
            return nil
        }
        defer { group.cancelAll() }
        return try await body(Database(client: client))
    }
}

func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func fingerprint(_ seed: Int) -> String {
    (0..<32).map { String(format: "%02X", ($0 * 31 + seed * 7) & 0xFF) }.joined(separator: ":")
}

let benchDB = "aasa_bench_pk_\(getpid())"
let work = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-bench-pk-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: work) }
_ = try await withClient(serverURL.with(database: "postgres")) { db in
    try await db.read(logger: logger) { try await $0.run("CREATE DATABASE \(unescaped: benchDB)") }
}

let rp = "p0.example.com"
let results = try await withClient(serverURL.with(database: benchDB)) { db in
    _ = try await db.read(logger: logger) {
        try await Migrator(files: try MigrationFile.load(from: migrations)).migrate($0)
    }
    // 20 apps with webcredentials, a team granted it on 5 domains (p*) and on the publish pairs
    // (with*, without*); every app a client of p0, which lists 4 related origins.
    try await db.transaction(logger: logger) { s in
        let team = try await s.insertTeam(name: "bench", displayName: "Bench")
        var apps: [AppRecord] = []
        for k in 0..<10 {
            apps.append(
                try await s.insertApp(
                    appID: "ABCDE12345.com.example.i\(k)", teamID: team.id, services: [.webcredentials])!)
            apps.append(
                try await s.insertApp(
                    appID: "com.example.a\(k)", teamID: team.id, services: [.webcredentials], platform: .android,
                    fingerprints: [fingerprint(2 * k), fingerprint(2 * k + 1)],
                    keyLabels: [fingerprint(2 * k): "play-signing", fingerprint(2 * k + 1): "upload"])!)
        }
        var hosts = (0..<5).map { "p\($0).example.com" }
        for i in 0..<domainCount { hosts += ["with\(i).example.com", "without\(i).example.com"] }
        for host in hosts {
            let root = "\(work)/\(host)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let domain = try await s.insertDomain(
                host: host, aliases: [], variables: [], defaults: .init(), webRoots: [root])
            _ = try await s.upsertGrant(
                domainID: domain.id, teamID: team.id, pathPrefixes: ["/"], services: [.webcredentials])
            if host == rp || host.hasPrefix("with") && !host.hasPrefix("without") {
                for origin in [
                    "https://shop.example.de", "https://example.co.uk", "https://login.example.fr",
                    "https://m.example.io",
                ] {
                    try await s.insertRelatedOrigin(domainID: domain.id, origin: origin, teamID: team.id)
                }
            }
        }
        for app in apps { try await s.setPasskeyRelyingParties(appID: app.id, [rp]) }
    }
    let publishing = PublishingService(database: db, webRootBases: [])
    for k in 0..<5 { _ = try await publishing.publishDraft(host: "p\(k).example.com", reason: "bench", logger: logger) }

    // The report, and its baseline: the RP domain's draft alone.
    var reportTimes: [Double] = []
    var draftTimes: [Double] = []
    try await db.read(logger: logger) { s in
        let domain = try await s.domain(host: rp)!
        for _ in 0..<reportCount {
            let t0 = ContinuousClock.now
            _ = try await DomainDocument.render(try await s.snapshot(of: domain))
            draftTimes.append(seconds(ContinuousClock.now - t0))
            let t1 = ContinuousClock.now
            let report = try await RelyingPartyReport.build(rp, session: s)
            reportTimes.append(seconds(ContinuousClock.now - t1))
            precondition(report.clients.count == 20, "the report names every client")
        }
    }

    // Publishing with the third file against without, interleaved.
    var withTimes: [Double] = []
    var withoutTimes: [Double] = []
    for i in 0..<domainCount {
        for (host, into) in [("without\(i).example.com", 0), ("with\(i).example.com", 1)] {
            let t0 = ContinuousClock.now
            let result = try await publishing.publishDraft(host: host, reason: "bench", logger: logger)
            precondition(result.created && result.failedTargets == 0)
            if into == 0 {
                withoutTimes.append(seconds(ContinuousClock.now - t0))
            } else {
                withTimes.append(seconds(ContinuousClock.now - t0))
            }
        }
    }
    precondition(FileManager.default.fileExists(atPath: "\(work)/with0.example.com/.well-known/webauthn"))
    precondition(!FileManager.default.fileExists(atPath: "\(work)/without0.example.com/.well-known/webauthn"))
    return (reportTimes, draftTimes, withTimes, withoutTimes)
}
_ = try await withClient(serverURL.with(database: "postgres")) { db in
    try await db.read(logger: logger) { try await $0.run("DROP DATABASE IF EXISTS \(unescaped: benchDB) WITH (FORCE)") }
}

let (reportTimes, draftTimes, withTimes, withoutTimes) = results
func row(_ name: String, _ times: [Double], against baseline: [Double]) -> String {
    let mean = times.reduce(0, +) / Double(times.count)
    let base = baseline.reduce(0, +) / Double(baseline.count)
    return String(
        format: "| %@ | %.3f | %.3f | %.2fx |", name, percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000,
        mean / base)
}
print(
    "passkeys: an RP ID with 20 client apps (10 iOS, 10 Android) over 5 domains; \(domainCount) publishes of each kind")
print("")
print("| what | p50 ms | p99 ms | mean vs baseline |")
print("|---|---|---|---|")
print(row("baseline: the RP domain's draft rendered", draftTimes, against: draftTimes))
print(row("the readiness report (GET /v1/relying-parties/{rpID}, its service)", reportTimes, against: draftTimes))
print(row("baseline: publish, two files (AASA, assetlinks.json)", withoutTimes, against: withoutTimes))
print(row("publish, three files (+ /.well-known/webauthn)", withTimes, against: withoutTimes))
