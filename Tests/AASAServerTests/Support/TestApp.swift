import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServer
import AASAServices
import AASAStore
import AASATestSupport
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1

/// One test's world: a cloned database, the real application over HTTP on a free port, and an
/// admin token made as `aasad token create --admin` makes it.
struct TestWorld: Sendable {
    let client: any TestClientProtocol
    let databaseURL: DatabaseURL
    let adminToken: String
    /// This world's entry in `WorldPhases`: each call names itself there while it runs.
    var phases: UUID? = nil

    /// Runs `body` against a live server on a fresh database.
    /// With `databaseURL`, the server runs on that database (another world's, for two servers on
    /// one database), which is then left to its owner.
    /// `live`: a real server on a port, for what only the transport shows (the served files' event
    /// loop handler, raw sockets, curl, nginx, Host handling); otherwise the router is called
    /// in-process, middleware and services included (issue 40: no port for tests of the API alone).
    static func run(
        live: Bool = false, webRootBases: [String] = [], databaseURL: DatabaseURL? = nil,
        configure: @Sendable (inout AppConfig) -> Void = { _ in },
        _ body: @Sendable (TestWorld) async throws -> Void
    ) async throws {
        let phases = WorldPhases.shared.begin(WorldPhases.waitingForSlot)
        defer { WorldPhases.shared.end(phases) }
        try await TestWorldSlots.shared.hold {
            WorldPhases.shared.enter(phases, "cloning its database")
            try await run(
                phases: phases, live: live, webRootBases: webRootBases, databaseURL: databaseURL, configure: configure,
                body)
        }
    }

    private static func run(
        phases: UUID, live: Bool, webRootBases: [String], databaseURL: DatabaseURL?,
        configure: @Sendable (inout AppConfig) -> Void, _ body: @Sendable (TestWorld) async throws -> Void
    ) async throws {
        let url: DatabaseURL
        if let databaseURL { url = databaseURL } else { url = try await TestDatabase.shared.clone() }
        let owned = databaseURL == nil
        do {
            WorldPhases.shared.enter(phases, "making the admin token")
            let token = try await TestDatabase.shared.withClient(url: url) { database in
                try await makeToken(database, teamID: nil, scopes: [.admin], name: "test admin")
            }
            var config = AppConfig(
                host: "127.0.0.1", port: 0, databaseURL: url,
                migrationsDirectory: TestDatabase.migrationsDirectory, logLevel: .warning,
                maxBodyBytes: 64 * 1024, databaseConnections: 8, webRootBases: webRootBases)
            // Dozens of tests clone databases and connect at once on 2 cores: a slow first
            // connection is load here, not an outage (FaultTests check the 5 s bound on aasad).
            config.databaseLeaseTimeout = .seconds(60)
            // Likewise a statement's deadline: FaultTests and ConnectionFaultTests test the real one.
            config.statementDeadline = .seconds(60)
            // The webhook worker only where a test wants it (WebhookTests): dozens of idle workers
            // polling at once are load the other tests do not need.
            config.webhookInterval = nil
            // The reconciler's start-up pass only: a test that edits a web root and reconciles it
            // itself must not race a periodic pass (a loaded run once took 91 s, past its minute).
            config.reconcileInterval = .seconds(3600)
            configure(&config)
            let app = try buildApplication(config: config)
            WorldPhases.shared.enter(phases, "starting the application's services")
            try await app.test(live ? .live : .router) { client in
                WorldPhases.shared.enter(phases, "running the test's body")
                try await body(TestWorld(client: client, databaseURL: url, adminToken: token, phases: phases))
                WorldPhases.shared.enter(phases, "shutting the application's services down")
            }
        } catch {
            WorldPhases.shared.enter(phases, "dropping its database, after \(error)")
            if owned { await TestDatabase.shared.drop(url) }
            throw error
        }
        WorldPhases.shared.enter(phases, "dropping its database")
        if owned { await TestDatabase.shared.drop(url) }
    }

    static func makeToken(
        _ database: Database, teamID: Int64?, scopes: [TokenScope], name: String,
        expiresAt: Date? = nil
    ) async throws -> String {
        let generated = TokenSecret.generate()
        try await database.transaction(logger: Logger(label: "test")) { session in
            _ = try await session.insertToken(
                id: generated.id, teamID: teamID, name: name, scopes: scopes,
                secretHash: generated.hash, expiresAt: expiresAt)
        }
        return generated.token
    }

    /// Runs SQL checks against this test's database.
    func withDatabase<T: Sendable>(_ body: @Sendable (Database) async throws -> T) async throws -> T {
        try await TestDatabase.shared.withClient(url: databaseURL, body)
    }

    // MARK: HTTP

    /// A client that answers redirects as they come (the console's 303s are what tests check);
    /// it lives as long as the test process.
    static let httpClient = HTTPClient(
        eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))

    struct Reply: Sendable {
        var status: Int
        var headers: HTTPFields
        var body: [UInt8]
        /// From sending the request to the whole answer read.
        var elapsed: Duration = .zero

        var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }
        var object: [String: Any] { json as? [String: Any] ?? [:] }
        var etag: String? { headers[.eTag] }
        var text: String { String(decoding: body, as: UTF8.self) }
        var problemRules: [String] { (object["errors"] as? [[String: Any]] ?? []).compactMap { $0["rule"] as? String } }
        var problemFields: [String] {
            (object["errors"] as? [[String: Any]] ?? []).compactMap { $0["field"] as? String }
        }
    }

    @discardableResult
    func call(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: Any? = nil,
        raw: String? = nil, headers extra: [String: String] = [:]
    ) async throws -> Reply {
        var headers = HTTPFields()
        if let token { headers[.authorization] = "Bearer \(token)" }
        var body: ByteBuffer?
        if let json {
            body = ByteBuffer(
                bytes: Array(try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])))
            headers[.contentType] = "application/json"
        } else if let raw {
            body = ByteBuffer(string: raw)
            headers[.contentType] = "application/json"
        }
        for (name, value) in extra { headers[HTTPField.Name(name)!] = value }
        let started = ContinuousClock.now
        if let phases { WorldPhases.shared.enter(phases, "calling \(method) \(path.prefix(200))") }
        defer {
            if let phases { WorldPhases.shared.enter(phases, "running the test's body") }
            // A call this slow says where a test's time went (the suite runs dozens of servers on 2 cores).
            if ContinuousClock.now - started > .seconds(10) {
                print("slow test call: \(method) \(path) took \(ContinuousClock.now - started)")
            }
        }
        // A path no URL parser takes (raw spaces, control characters) goes as written, through the
        // framework's client.
        guard let port = client.port, URL(string: "http://127.0.0.1\(path)") != nil else {
            let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
            return Reply(
                status: Int(response.status.code), headers: response.headers,
                body: Array(response.body.readableBytesView), elapsed: ContinuousClock.now - started)
        }
        // Our own client rather than the test framework's: its read timeout (20 s, fixed) is shorter
        // than a request can take when the whole suite loads 2 cores at once.
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = .init(rawValue: method.rawValue)
        for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
        if let body { request.body = .bytes(body) }
        let response = try await Self.httpClient.execute(request, timeout: .seconds(120))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        var fields = HTTPFields()
        for (name, value) in response.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Reply(
            status: Int(response.status.code), headers: fields, body: Array(bytes.readableBytesView),
            elapsed: ContinuousClock.now - started)
    }

    // MARK: Fixtures through the API

    @discardableResult
    func createTeam(_ name: String) async throws -> Reply {
        try await call(.post, "/v1/teams", token: adminToken, json: ["name": name])
    }

    /// A token of `team` with the given scopes, made through the API.
    func teamToken(_ team: String, scopes: [String], expiresAt: String? = nil) async throws -> (
        secret: String, id: String
    ) {
        var body: [String: Any] = ["name": "\(team)-\(scopes.joined(separator: "-"))", "scopes": scopes]
        if let expiresAt { body["expiresAt"] = expiresAt }
        let reply = try await call(.post, "/v1/teams/\(team)/tokens", token: adminToken, json: body)
        let token = reply.object["token"] as? [String: Any]
        return (reply.object["secret"] as? String ?? "", token?["id"] as? String ?? "")
    }
}
