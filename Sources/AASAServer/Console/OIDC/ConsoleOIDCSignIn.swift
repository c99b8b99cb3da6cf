import AASAKernel
import AASAModel
import AASAOutbound
import AASAServices
import AASAStore
import Foundation
import Logging

/// Console sign-in through an OpenID provider (issue 53): the authorization code flow with PKCE
/// (S256), `state` and `nonce`, then the person's groups mapped to what they may do.
///
/// `start` sends the browser to the provider with a random `state`, `nonce` and PKCE seed, sealed
/// into its binding cookie (`ConsoleOIDCLoginSeal`): nothing is stored until the provider answers.
/// `finish` opens the cookie (the browser is the one that started, within ten minutes), checks the
/// state, redeems the code with the verifier and the client's secret, verifies the ID token
/// as the pipeline exchange does (the provider's keys through `OIDCKeyCache`, the algorithm from the
/// key) plus its nonce and `azp`, and maps the groups. Then, in one transaction, it makes one token
/// per team the person may act for (or one admin token), named after the person, living until the
/// ID token expires (at most an hour): the console session speaks as one of them, so the audit
/// names the person, and the groups are asked again by that bound at the latest. Every refusal
/// writes an audit row and signs nobody in.
struct ConsoleOIDCSignIn: Sendable {
    let config: ConsoleOIDCConfig
    let verifier: IDTokenVerifier
    let fetcher: OutboundClient
    let database: Database
    let limiter: SignInLimiter
    /// Seals each sign-in under way into its binding cookie.
    let signInKey: ConsoleSignInKey

    init(
        config: ConsoleOIDCConfig, verifier: IDTokenVerifier, fetcher: OutboundClient, database: Database,
        limiter: SignInLimiter
    ) {
        self.config = config
        self.verifier = verifier
        self.fetcher = fetcher
        self.database = database
        self.limiter = limiter
        signInKey = ConsoleSignInKey(database: database)
    }

    /// The cookie that binds a sign-in to the browser that started it: `SameSite=Lax`, since the
    /// provider's redirect back is a cross-site navigation that would not carry a Strict cookie.
    static let bindingCookie = "aasa_console_oidc"
    /// A sign-in not finished within this is gone.
    static let loginMaxAge: Duration = .seconds(600)
    /// The longest a person's tokens live, whatever their ID token says: the bound on how long a
    /// group removed at the provider may still count.
    static let maxTokenLifetime: TimeInterval = 3600

    /// Why a sign-in was refused: the reason is the audit's and the metric's; the message is shown.
    struct Refusal: Error {
        var reason: String
        var message: String
        var kind: ServiceError.Kind = .unauthorized
        var retryAfter: Int?
    }

    struct SignedIn {
        var sessionID: String
        var person: String
    }

    func issuerRecord(_ provider: ConsoleOIDCConfig.Provider) -> OIDCIssuerRecord {
        OIDCIssuerRecord(
            name: provider.name, issuer: provider.issuer, audience: provider.clientID, createdAt: Date(),
            updatedAt: Date(), version: 0)
    }

    // MARK: - Start

    /// Where to send the browser, and the binding cookie's value to set.
    func start(provider name: String, client: String, requestID: String, logger: Logger) async throws -> (
        location: String, binding: String
    ) {
        guard let provider = config.provider(named: name) else {
            throw ServiceError.notFound("no sign-in provider \(name)")
        }
        let discovery: OIDCDiscovery
        do {
            discovery = try await verifier.keys.discovery(of: issuerRecord(provider))
        } catch {
            throw try await refuse(
                Refusal(
                    reason: "provider-unavailable",
                    message: "\(provider.displayName) cannot be reached: \(error.message)",
                    kind: .unavailable, retryAfter: error.retryAfter ?? 60),
                provider: provider, client: client, requestID: requestID, logger: logger)
        }
        guard let endpoint = discovery.authorizationEndpoint, endpoint.hasPrefix("https://"),
            var url = URLComponents(string: endpoint)
        else {
            throw try await refuse(
                Refusal(
                    reason: "provider-unavailable",
                    message: "\(provider.displayName)'s discovery document names no https authorization_endpoint",
                    kind: .unavailable),
                provider: provider, client: client, requestID: requestID, logger: logger)
        }
        // Nothing is stored: the sign-in goes to the browser, sealed, in the binding cookie.
        let login = ConsoleOIDCLogin(
            provider: provider.name, state: ConsoleCookie.newID(), nonce: ConsoleCookie.newID(),
            binding: ConsoleCookie.newID(), started: Int64(Date().timeIntervalSince1970))
        let cookie = try await signInKey.sealer(logger: logger).seal(login)
        url.queryItems =
            (url.queryItems ?? []) + [
                URLQueryItem(name: "response_type", value: "code"),
                URLQueryItem(name: "client_id", value: provider.clientID),
                URLQueryItem(name: "redirect_uri", value: config.redirectURI(provider)),
                URLQueryItem(name: "scope", value: provider.scopes.joined(separator: " ")),
                URLQueryItem(name: "state", value: login.state), URLQueryItem(name: "nonce", value: login.nonce),
                URLQueryItem(name: "code_challenge", value: Self.challenge(binding: login.binding)),
                URLQueryItem(name: "code_challenge_method", value: "S256"),
            ]
        // `+` in a query means a space to many servers: send it encoded.
        url.percentEncodedQuery = url.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return (url.string ?? endpoint, cookie)
    }

    // MARK: - Finish

    /// The provider's answer: a new session, or a refusal (audited, nothing signed in).
    func finish(
        provider name: String, query: [String: String], binding: String?, client: String, requestID: String,
        logger: Logger
    ) async throws -> SignedIn {
        guard let provider = config.provider(named: name) else {
            throw ServiceError.notFound("no sign-in provider \(name)")
        }
        do {
            let signedIn = try await finish(
                provider, query: query, binding: binding, requestID: requestID, logger: logger)
            ConsoleOIDCMetrics.count("signed-in")
            return signedIn
        } catch let refusal as Refusal {
            throw try await refuse(refusal, provider: provider, client: client, requestID: requestID, logger: logger)
        }
    }

    private func finish(
        _ provider: ConsoleOIDCConfig.Provider, query: [String: String], binding: String?, requestID: String,
        logger: Logger
    ) async throws -> SignedIn {
        if let error = query["error"] {
            throw Refusal(
                reason: "provider-refused", message: "\(provider.displayName) did not sign you in (\(error.prefix(64)))"
            )
        }
        guard let state = query["state"], !state.isEmpty, state.utf8.count <= 256 else {
            throw Refusal(reason: "state", message: "the provider's answer carries no state; start again")
        }
        let work = RequestWork(database: database, logger: logger)
        // The sign-in this browser started, from its sealed cookie (cleared with this answer, whatever
        // follows): no cookie, or one this server did not seal, is a sign-in started elsewhere.
        // The usual cause on a first day: the sign-in was started on another host name of this server
        // (localhost, say) than the console's baseURL, where the provider sends the browser back, so
        // the cookie is not here. Said with the address to use.
        guard let binding, let login = try await signInKey.sealer(logger: logger).open(binding) else {
            throw Refusal(
                reason: "state",
                message: "this browser holds no sign-in started at \(config.signInURL): start it there (the "
                    + "console's baseURL, where \(provider.displayName) sends you back), not at another address of "
                    + "this server, and in this browser")
        }
        guard login.provider == provider.name,
            TokenSecret.constantTimeEquals(ConsoleCookie.hash(state), ConsoleCookie.hash(login.state))
        else {
            throw Refusal(reason: "state", message: "this answer is not the sign-in this browser started; start again")
        }
        let age = Int64(Date().timeIntervalSince1970) - login.started
        guard age >= -60, age <= Int64(Self.loginMaxAge.components.seconds) else {
            throw Refusal(reason: "state", message: "this sign-in was started over ten minutes ago; start again")
        }
        guard let code = query["code"], !code.isEmpty, code.utf8.count <= 2048 else {
            throw Refusal(reason: "code", message: "the provider's answer carries no code; start again")
        }
        let idToken = try await redeem(code, provider: provider, verifier: Self.verifier(binding: login.binding))
        let claims: PersonClaims
        do {
            let record = issuerRecord(provider)
            claims = try await verifier.verifySignature(idToken, of: record, as: PersonClaims.self)
            try PersonClaimCheck.check(
                claims, issuer: provider.issuer, clientID: provider.clientID,
                nonceMatches: {
                    TokenSecret.constantTimeEquals(ConsoleCookie.hash($0), ConsoleCookie.hash(login.nonce))
                }, now: Date())
        } catch let refusal as ExchangeRefusal {
            throw Refusal(
                reason: refusal.reason.rawValue, message: refusal.message,
                kind: refusal.reason == .keysUnavailable ? .unavailable : .unauthorized,
                retryAfter: refusal.retryAfter)
        }
        let person = Person(claims, provider: provider)
        let groups = try Self.storableGroups(claims.groups(at: provider.groupsClaim), provider: provider)
        try checkAllowed(person, groups: groups, provider: provider)
        return try await work.transaction { session in
            let grants = try await session.consoleGrants(provider: provider.name, groups: groups)
            guard !grants.isEmpty else {
                throw Refusal(
                    reason: "no-group",
                    message:
                        "\(person.name) is in no group that gives access to this console; ask an admin to map one",
                    kind: .forbidden)
            }
            let expiry = min(
                Date(timeIntervalSince1970: claims.expires ?? 0), Date().addingTimeInterval(Self.maxTokenLifetime))
            let actor = Actor(tokenID: nil, name: person.name, team: nil, requestID: requestID)
            let audited = person.audit(groups: grants.map(\.group))
            var tokens: [TokenRecord] = []
            for (team, scopes) in try await Self.resolve(grants, session: session) {
                tokens.append(
                    try await TokenIssuer.issueForPerson(
                        session, team: team, name: person.name, scopes: scopes, expiresAt: expiry,
                        person: audited, by: actor))
            }
            let id = ConsoleCookie.newID()
            try await session.insertConsoleSession(
                idHash: ConsoleCookie.hash(id), tokenIDs: tokens.map(\.id), provider: provider.name,
                person: person.name, idToken: idToken)
            var after = audited
            if case .object(var o) = after {
                o.append("teams", .array(tokens.map { .string($0.teamName ?? "admin") }))
                o.append("until", .string(ISO8601DateFormatter().string(from: expiry)))
                after = .object(o)
            }
            try await session.appendAudit(
                AuditEntry(
                    action: "console.sign-in", entityType: "console-session", entityID: provider.name, after: after
                ).record(by: actor))
            return SignedIn(sessionID: id, person: person.name)
        }
    }

    /// The teams and scopes the grants give, in the mappings' order: admin alone if any group gives it.
    static func resolve(_ grants: [ConsoleGroupMapping], session: DBSession) async throws -> [(
        TeamRecord?, [TokenScope]
    )] {
        if grants.contains(where: { $0.role == "admin" }) { return [(nil, [.admin])] }
        var order: [String] = []
        var write: Set<String> = []
        for grant in grants {
            guard let team = grant.team else { continue }
            if !order.contains(team) { order.append(team) }
            if grant.role == "write" { write.insert(team) }
        }
        var result: [(TeamRecord?, [TokenScope])] = []
        for name in order {
            guard let team = try await session.team(named: name) else { continue }
            result.append((team, write.contains(name) ? [.write] : [.read]))
        }
        return result
    }

    /// The groups as the provider sent them, refused whole (audited `malformed`) when one holds what
    /// PostgreSQL cannot store: U+0000 reached SQL and made the callback 500, unaudited. A group is
    /// matched exactly against the mappings, so it is refused, not cleaned: a cleaned name could
    /// match a mapping the provider never meant. (The refusal never quotes the group: the audit is
    /// PostgreSQL's too.)
    static func storableGroups(_ groups: [String], provider: ConsoleOIDCConfig.Provider) throws -> [String] {
        if let i = groups.firstIndex(where: { $0.unicodeScalars.contains("\u{0}") }) {
            throw Refusal(
                reason: "malformed",
                message:
                    "\(provider.displayName)'s groups claim is malformed (group \(i + 1) of \(groups.count) holds "
                    + "U+0000): ask the provider's admin to fix that group's name")
        }
        return groups
    }

    private func checkAllowed(_ person: Person, groups: [String], provider: ConsoleOIDCConfig.Provider) throws {
        if !provider.allowedDomains.isEmpty {
            let domain = person.email.flatMap { $0.split(separator: "@").last.map { $0.lowercased() } }
            guard let domain, provider.allowedDomains.contains(domain) else {
                throw Refusal(
                    reason: "not-allowed", message: "\(person.name) has no verified email at an allowed domain",
                    kind: .forbidden)
            }
        }
        if !provider.allowedGroups.isEmpty, Set(groups).isDisjoint(with: provider.allowedGroups) {
            throw Refusal(
                reason: "not-allowed", message: "\(person.name) is in none of the groups allowed to sign in",
                kind: .forbidden)
        }
    }

    /// The ID token for `code`, from the provider's token endpoint (client authenticated as set).
    private func redeem(_ code: String, provider: ConsoleOIDCConfig.Provider, verifier pkce: String) async throws
        -> String
    {
        let discovery: OIDCDiscovery
        do { discovery = try await verifier.keys.discovery(of: issuerRecord(provider)) } catch {
            throw Refusal(
                reason: "provider-unavailable", message: error.message, kind: .unavailable, retryAfter: error.retryAfter
            )
        }
        guard let endpoint = discovery.tokenEndpoint, endpoint.hasPrefix("https://") else {
            throw Refusal(
                reason: "provider-unavailable", message: "the discovery document names no https token_endpoint",
                kind: .unavailable)
        }
        var form: [(String, String)] = [
            ("grant_type", "authorization_code"), ("code", code), ("redirect_uri", config.redirectURI(provider)),
            ("code_verifier", pkce),
        ]
        var headers = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept", "application/json")]
        switch (provider.clientSecret, provider.tokenEndpointAuth) {
        case (let secret?, "client_secret_basic"):
            let pair = Self.formEncode(provider.clientID) + ":" + Self.formEncode(secret.value)
            headers.append(("Authorization", "Basic " + Data(pair.utf8).base64EncodedString()))
        case (let secret?, _):
            form += [("client_id", provider.clientID), ("client_secret", secret.value)]
        case (nil, _):
            form.append(("client_id", provider.clientID))
        }
        let body = form.map { Self.formEncode($0.0) + "=" + Self.formEncode($0.1) }.joined(separator: "&")
        let fetched = await fetcher.post(endpoint, headers: headers, body: Array(body.utf8))
        guard let status = fetched.status else {
            throw Refusal(
                reason: "provider-unavailable",
                message: "\(provider.displayName)'s token endpoint gave no answer (\(OIDCKeyCache.why(fetched)))",
                kind: .unavailable)
        }
        let answer = fetched.bytes.flatMap { try? JSONDecoder().decode(TokenAnswer.self, from: Data($0)) }
        guard status == 200, let idToken = answer?.idToken else {
            // The provider's error code only (invalid_grant, …): its description may quote what was sent.
            let error = answer?.error.map { String($0.prefix(64)) } ?? "HTTP \(status)"
            throw Refusal(reason: "code", message: "\(provider.displayName) did not redeem the code (\(error))")
        }
        return idToken
    }

    private struct TokenAnswer: Decodable {
        var idToken: String?
        var error: String?

        enum CodingKeys: String, CodingKey {
            case idToken = "id_token"
            case error
        }
    }

    // MARK: - Refusals

    /// Audits and logs the refusal (never the code, a token or a secret), counts it against the
    /// client like a failed token sign-in, and returns what the page shows.
    private func refuse(
        _ refusal: Refusal, provider: ConsoleOIDCConfig.Provider, client: String, requestID: String, logger: Logger
    ) async throws -> ServiceError {
        logger.notice(
            "console sign-in refused",
            // The message too, as the page and the audit show it (the cause and its fix; never a secret).
            metadata: [
                "client": .string(client), "provider": .string(provider.name), "reason": .string(refusal.reason),
                "message": .string(refusal.message),
            ])
        ConsoleOIDCMetrics.count(refusal.reason)
        try limiter.admit(client)
        // The provider's trouble (its keys or discovery unreachable: 503) is not the client's failure;
        // counted, it made the sixth of six sign-ins on a fresh replica a 429.
        if refusal.kind != .unavailable { limiter.recordFailure(client) }
        try await RequestWork(database: database, logger: logger).transaction { session in
            try await session.appendAudit(
                AuditEntry(
                    action: "console.sign-in-refused", entityType: "console-session", entityID: provider.name,
                    after: .object([
                        "provider": .string(provider.name), "reason": .string(refusal.reason),
                        "message": .string(refusal.message),
                    ])
                ).record(
                    by: Actor(
                        tokenID: nil, name: "console sign-in from \(client)", team: nil, requestID: requestID)))
        }
        return ServiceError(
            kind: refusal.kind, slug: "console-sign-in-refused", title: "Not signed in", detail: refusal.message,
            errors: [FieldError(field: "sign-in", rule: refusal.reason, message: refusal.message)],
            retryAfter: refusal.retryAfter)
    }

    // MARK: - Logout

    /// The provider's logout URL for the session, when it advertises `end_session_endpoint`.
    func endSessionURL(_ person: ConsoleSessionPerson) async -> String? {
        guard let provider = config.provider(named: person.provider),
            let discovery = try? await verifier.keys.discovery(of: issuerRecord(provider)),
            let endpoint = discovery.endSessionEndpoint, endpoint.hasPrefix("https://"),
            var url = URLComponents(string: endpoint)
        else { return nil }
        var items = url.queryItems ?? []
        if let hint = person.idToken { items.append(URLQueryItem(name: "id_token_hint", value: hint)) }
        items.append(URLQueryItem(name: "client_id", value: provider.clientID))
        items.append(URLQueryItem(name: "post_logout_redirect_uri", value: config.signInURL))
        url.queryItems = items
        return url.string
    }

    // MARK: - Pieces

    /// The PKCE verifier (RFC 7636 §4.1: 43 characters of base64url) derived from the binding
    /// cookie: only the browser that started the sign-in holds it.
    static func verifier(binding: String) -> String { ConsoleCookie.base64URL(ConsoleCookie.hash("pkce:\(binding)")) }

    static func challenge(binding: String) -> String {
        ConsoleCookie.base64URL(ConsoleCookie.hash(verifier(binding: binding)))
    }

    /// `application/x-www-form-urlencoded` (and RFC 6749 §2.3.1's client credentials): all but
    /// the unreserved characters percent-encoded.
    static func formEncode(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}

/// The person an ID token names, as the audit and the console name them.
struct Person {
    var sub: String
    var email: String?
    var username: String?
    var provider: String
    /// `alice@example.com (sub 1234) via corp`: bounded, with no control characters.
    var name: String

    init(_ claims: PersonClaims, provider: ConsoleOIDCConfig.Provider) {
        sub = Self.clean(claims.subject ?? "", 128)
        email = claims.verifiedEmail.map { Self.clean($0, 128) }
        username = claims.preferredUsername.map { Self.clean($0, 128) }
        self.provider = provider.name
        let shown = email ?? username ?? sub
        name = shown == sub ? "\(sub) via \(provider.name)" : "\(shown) (sub \(sub)) via \(provider.name)"
    }

    func audit(groups: [String]) -> JSONValue {
        var o: JSONObject = ["provider": .string(provider), "sub": .string(sub)]
        if let email { o.append("email", .string(email)) }
        if let username { o.append("preferredUsername", .string(username)) }
        o.append("groups", .array(Array(Set(groups)).sorted().map { .string($0) }))
        return .object(o)
    }

    static func clean(_ text: String, _ limit: Int) -> String {
        String(String(text.unicodeScalars.filter { !CharacterSet.controlCharacters.contains($0) }).prefix(limit))
    }
}
