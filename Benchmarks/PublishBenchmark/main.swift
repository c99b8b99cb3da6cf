import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import Foundation
import Logging
import PostgresNIO

// Publishing N domains through the real path (render, validate, revision + audit in PostgreSQL,
// NOTIFY, temp file + fsync + rename into a web root) against its baseline in the same run: a
// plain loop writing the same bytes to the same number of files with temp file + fsync + rename.
//
//   aasa-bench-publish --database-url postgres://… --migrations DIR [--domains 1000] [--s3-endpoint URL]
//
// With --s3-endpoint (a moto server, started by scripts/bench/publish), every domain is then
// published again with an S3 target beside its web root (PUT + HEAD per object, no edge check),
// against boto3's own put_object of the same bytes in the same run (scripts/bench/boto3-put.py).
#if canImport(Glibc)
    import Glibc
#endif

let arguments = CommandLine.arguments.dropFirst()
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), arguments.index(after: i) < arguments.endIndex else { return nil }
    return arguments[arguments.index(after: i)]
}
let domainCount = Int(option("--domains") ?? "1000") ?? 1000
let serverURL = try DatabaseURL(option("--database-url") ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "")
let migrations = option("--migrations") ?? "migrations"
let s3Endpoint = option("--s3-endpoint")
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
        try await Task.sleep(for: .milliseconds(20))
        defer { group.cancelAll() }
        return try await body(Database(client: client))
    }
}

func peakRSSMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

let benchDB = "aasa_bench_\(getpid())"
let work = FileManager.default.temporaryDirectory.appendingPathComponent("aasa-bench-\(getpid())").path
try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
_ = try await withClient(serverURL.with(database: "postgres")) { db in
    try await db.read(logger: logger) { try await $0.run("CREATE DATABASE \(unescaped: benchDB)") }
}
let url = serverURL.with(database: benchDB)
defer {
    try? FileManager.default.removeItem(atPath: work)
}

/// Publishing every domain again with an S3 target beside its web root; fills `s3Times`.
nonisolated(unsafe) var s3Times: [Double] = []
nonisolated(unsafe) var s3Seconds = 0.0
func s3Run(_ db: Database, endpoint: String) async throws {
    try await db.transaction(logger: logger) { s in
        for i in 0..<domainCount {
            guard let domain = try await s.domain(host: "d\(i).example.com") else { continue }
            var spec = TargetSpec(kind: .s3)
            spec.bucket = "bench"
            spec.prefix = "d\(i)/"
            spec.region = "us-east-1"
            spec.endpoint = endpoint
            spec.addressing = "path"
            spec.insecure = true
            spec.credentials = "bench"
            spec.cacheControl = "max-age=3600"
            spec.name = "s3://bench/d\(i)/"
            try await s.setObjectTargets(domainID: domain.id, specs: [spec.json])
        }
    }
    let http = ObjectStoreHTTP(caFile: nil)
    let keys = AWSKeys(accessKeyID: "bench", secretAccessKey: "bench")
    let objects = ObjectPublishing(
        credentials: CredentialSets(sources: ["bench": .keys(keys)], http: http), http: http, edge: nil)
    let publishing = PublishingService(database: db, webRootBases: [], objects: objects)
    let start = ContinuousClock.now
    for i in 0..<domainCount {
        let t0 = ContinuousClock.now
        let result = try await publishing.publishDraft(host: "d\(i).example.com", reason: "bench", logger: logger)
        precondition(result.failedTargets == 0, "an S3 target failed")
        let d = ContinuousClock.now - t0
        s3Times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    let total = ContinuousClock.now - start
    s3Seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
}

let (publishSeconds, perPublish, bytesPerDomain) = try await withClient(url) { db -> (Double, [Double], [[UInt8]]) in
    _ = try await db.read(logger: logger) {
        try await Migrator(files: try MigrationFile.load(from: migrations)).migrate($0)
    }
    // Seed: one team and app, N domains each with a web root, a grant and two rules.
    try await db.transaction(logger: logger) { s in
        let team = try await s.insertTeam(name: "bench", displayName: "Bench")
        // A fresh database has no builds, so the app is always written.
        let app = try await s.insertApp(appID: "ABCDE12345.com.example.bench", teamID: team.id, services: [.applinks])!
        for i in 0..<domainCount {
            let root = "\(work)/publish/d\(i)"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            let domain = try await s.insertDomain(
                host: "d\(i).example.com", aliases: [], variables: [], defaults: .init(), webRoots: [root])
            _ = try await s.upsertGrant(domainID: domain.id, teamID: team.id, pathPrefixes: ["/"], services: [])
            let rules = [
                StoredRule(id: UUID(), component: .object(["/": .string("/d\(i)/private/*"), "exclude": .bool(true)])),
                StoredRule(id: UUID(), component: .object(["/": .string("/d\(i)/*")])),
            ]
            _ = try await s.saveRuleSet(domainID: domain.id, appPK: app.id, rules: rules, previousVersion: 0)
        }
    }
    var times: [Double] = []
    let publishing = PublishingService(database: db, webRootBases: [])
    let start = ContinuousClock.now
    for i in 0..<domainCount {
        let t0 = ContinuousClock.now
        let result = try await publishing.publishDraft(
            host: "d\(i).example.com", reason: "bench", logger: logger)
        precondition(result.created && result.failedTargets == 0)
        let d = ContinuousClock.now - t0
        times.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
    }
    let total = ContinuousClock.now - start
    if let s3Endpoint { try await s3Run(db, endpoint: s3Endpoint) }
    let bytes = (0..<domainCount).map { i in
        [UInt8](FileManager.default.contents(atPath: "\(work)/publish/d\(i)/.well-known/apple-app-site-association")!)
    }
    return (Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18, times, bytes)
}

// Baseline: the same bytes, the same number of files, temp file + fsync + rename + directory fsync.
var baselineTimes: [Double] = []
let baselineStart = ContinuousClock.now
for (i, bytes) in bytesPerDomain.enumerated() {
    let t0 = ContinuousClock.now
    let dir = "\(work)/baseline/d\(i)/.well-known"
    try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    let temp = dir + "/.tmp"
    let target = dir + "/apple-app-site-association"
    let fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    fsync(fd)
    close(fd)
    rename(temp, target)
    let dfd = open(dir, O_RDONLY | O_DIRECTORY)
    fsync(dfd)
    close(dfd)
    let d = ContinuousClock.now - t0
    baselineTimes.append(Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18)
}
let baselineTotal = ContinuousClock.now - baselineStart
let baselineSeconds = Double(baselineTotal.components.seconds) + Double(baselineTotal.components.attoseconds) / 1e18

_ = try await withClient(serverURL.with(database: "postgres")) { db in
    try await db.read(logger: logger) { try await $0.run("DROP DATABASE IF EXISTS \(unescaped: benchDB) WITH (FORCE)") }
}

print("publish \(domainCount) domains (\(bytesPerDomain.first?.count ?? 0) bytes each), one at a time, in one run")
print("")
print("| path | domains/s | time vs loop | p50 ms | p99 ms |")
print("|---|---|---|---|---|")
print(
    String(
        format: "| plain loop: temp + fsync + rename | %.0f | 1.0x | %.3f | %.3f |",
        Double(domainCount) / baselineSeconds, percentile(baselineTimes, 0.5) * 1000,
        percentile(baselineTimes, 0.99) * 1000))
print(
    String(
        format: "| aasad publish (render, validate, revision, audit, NOTIFY, write) | %.0f | %.1fx | %.3f | %.3f |",
        Double(domainCount) / publishSeconds, publishSeconds / baselineSeconds,
        percentile(perPublish, 0.5) * 1000, percentile(perPublish, 0.99) * 1000))
print(String(format: "peak RSS: %.1f MiB", peakRSSMiB()))

if let s3Endpoint {
    // boto3's put_object of the same bytes, one object per domain, against the same moto.
    let files = (0..<domainCount).map { "\(work)/publish/d\($0)/.well-known/apple-app-site-association" }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "scripts/bench/boto3-put.py", s3Endpoint, "bench"] + files
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let boto = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    let botoSeconds = boto["seconds"] as? Double ?? 0
    let botoTimes = boto["times"] as? [Double] ?? [0]
    print("")
    print("publish \(domainCount) domains to an S3 target on local moto, one at a time, in the same run")
    print("")
    print("| path | domains/s | rate vs boto3 | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    print(
        String(
            format: "| boto3 put_object, the same bytes | %.0f | 1.00 | %.3f | %.3f |",
            Double(domainCount) / botoSeconds, percentile(botoTimes, 0.5) * 1000, percentile(botoTimes, 0.99) * 1000))
    print(
        String(
            format: "| aasad publish, web root + S3 (PUT, HEAD) | %.0f | %.2f | %.3f | %.3f |",
            Double(domainCount) / s3Seconds, botoSeconds / s3Seconds, percentile(s3Times, 0.5) * 1000,
            percentile(s3Times, 0.99) * 1000))
    print(
        String(
            format: "| aasad publish, web root only (above) | %.0f | | %.3f | %.3f |",
            Double(domainCount) / publishSeconds, percentile(perPublish, 0.5) * 1000,
            percentile(perPublish, 0.99) * 1000))
}
