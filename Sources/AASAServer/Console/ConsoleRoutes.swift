import AASAAPI
import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The web console at `/console` (issue 21): server-rendered pages over the API's own handlers.
/// Each request finds its session (`ConsoleSessionService`), becomes that session's principal for
/// the API's code (`RequestState`), and renders what the API answered; a POST must carry the CSRF
/// token derived from the session. A refusal is the API's problem, shown as a page with its status.
struct ConsoleRoutes: Sendable {
    let api: APIImplementation
    let sessions: ConsoleSessionService
    /// Whose `X-Forwarded-For` names the client counted by the sign-in throttle.
    var trustedProxies = TrustedProxies()
    /// Sign-in through the organisation's OpenID providers (nil: none configured).
    var oidc: ConsoleOIDCSignIn?
    /// Sign-in with a pasted API token: the break-glass way, which `AASA_CONSOLE_TOKEN_SIGN_IN=off`
    /// turns off once people sign in through a provider.
    var tokenSignIn = true

    /// The pre-session cookie that protects the sign-in form itself from cross-site posts.
    static let signInCookie = "aasa_console_signin"

    static let paths: [(HTTPRequest.Method, String)] = [
        (.get, "/console"), (.get, "/console/static/console.css"), (.get, "/console/sign-in"),
        (.post, "/console/sign-in"), (.post, "/console/sign-out"), (.get, "/console/domains/{host}"),
        (.get, "/console/domains/{host}/test"), (.get, "/console/domains/{host}/publish"),
        (.post, "/console/domains/{host}/publish"), (.get, "/console/domains/{host}/revisions"),
        (.get, "/console/domains/{host}/revisions/diff"), (.get, "/console/domains/{host}/revisions/{number}"),
        (.get, "/console/domains/{host}/revisions/{number}/rollback"),
        (.post, "/console/domains/{host}/revisions/{number}/rollback"), (.get, "/console/domains/{host}/apple"),
        (.post, "/console/domains/{host}/apple/probe"), (.post, "/console/domains/{host}/apple/cdn"),
        (.get, "/console/teams"), (.get, "/console/teams/{team}"), (.get, "/console/audit"),
        (.get, "/console/sign-in/oidc/{provider}"), (.get, "/console/sign-in/oidc/{provider}/callback"),
        (.get, "/console/session"), (.post, "/console/session/team"),
    ]

    func register(on router: Router<AppRequestContext>, routes: RouteTable) {
        for (method, path) in Self.paths { routes.add(method, path) }
        router.get("/console/static/console.css") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=300"],
                body: .init(byteBuffer: ByteBuffer(string: ConsoleAssets.css)))
        }
        router.get("/console/sign-in") { request, context in try await signInForm(request, context, error: nil) }
        router.post("/console/sign-in") { request, context in try await signIn(request, context) }
        router.post("/console/sign-out") { request, context in
            try await page(request, context) { pages, _ in
                guard let id = ConsoleCookie.value(in: request.headers) else { return nil }
                let person = try await sessions.signOut(
                    session: id, principal: pages.principal, requestID: state.requestID, logger: state.logger)
                // A provider's session ends at the provider too, where it says how (RP-initiated logout).
                var provider: String?
                if let person, let oidc { provider = await oidc.endSessionURL(person) }
                return .redirect(
                    provider ?? "/console/sign-in", cookie: ConsoleCookie.clearCookie(secure: Self.secure(request)))
            }
        }
        router.get("/console/sign-in/oidc/:provider") { request, context in
            try await startProviderSignIn(request, context)
        }
        router.get("/console/sign-in/oidc/:provider/callback") { request, context in
            try await finishProviderSignIn(request, context)
        }
        router.get("/console/session") { request, context in
            try await page(request, context) { pages, _ in
                guard let id = ConsoleCookie.value(in: request.headers) else { return nil }
                return .page(
                    try await ConsoleSessionPage.render(
                        session: id, principal: pages.principal, sessions: sessions, logger: state.logger))
            }
        }
        router.post("/console/session/team") { request, context in
            try await page(request, context) { pages, form in
                guard let id = ConsoleCookie.value(in: request.headers) else { return nil }
                guard let token = form["token"].flatMap(UUID.init(uuidString:)) else {
                    throw ServiceError.badRequest(
                        "token names one of this session's tokens", field: "token", rule: "uuid")
                }
                try await sessions.switchTeam(
                    session: id, to: token, principal: pages.principal, requestID: state.requestID,
                    logger: state.logger)
                return .redirect("/console", cookie: nil)
            }
        }
        router.get("/console") { request, context in
            try await page(request, context) { pages, _ in
                .page(try await pages.overview(cursor: request.uri.queryParameters["cursor"].map(String.init)))
            }
        }
        router.get("/console/domains/:host") { request, context in
            try await page(request, context) { pages, _ in .page(try await pages.domain(try host(context))) }
        }
        router.get("/console/domains/:host/test") { request, context in
            try await page(request, context) { pages, _ in
                let query = request.uri.queryParameters
                return .page(
                    try await pages.test(
                        try host(context), url: query["url"].map(String.init), source: query["source"].map(String.init))
                )
            }
        }
        router.get("/console/domains/:host/publish") { request, context in
            try await page(request, context) { pages, _ in .page(try await pages.publishPreview(try host(context))) }
        }
        router.post("/console/domains/:host/publish") { request, context in
            try await page(request, context) { pages, form in
                let host = try host(context)
                let result = try await pages.api.publish(host, reason: form["reason"] ?? "")
                return .page(try pages.published(host, result))
            }
        }
        router.get("/console/domains/:host/revisions") { request, context in
            try await page(request, context) { pages, _ in
                .page(
                    try await pages.revisions(
                        try host(context), cursor: request.uri.queryParameters["cursor"].map(String.init),
                        diffFrom: nil, diffTo: nil))
            }
        }
        router.get("/console/domains/:host/revisions/diff") { request, context in
            try await page(request, context) { pages, _ in
                let query = request.uri.queryParameters
                guard let from = query["from"].flatMap({ Int($0) }), from > 0 else {
                    throw ServiceError.badRequest("from is a revision number", field: "from", rule: "integer")
                }
                return .page(
                    try await pages.revisions(
                        try host(context), cursor: nil, diffFrom: from, diffTo: query["to"].map(String.init) ?? "draft",
                        android: query["file"] == "assetlinks"))
            }
        }
        router.get("/console/domains/:host/revisions/:number") { request, context in
            try await page(request, context) { pages, _ in
                .page(try await pages.revision(try host(context), try number(context)))
            }
        }
        router.get("/console/domains/:host/revisions/:number/rollback") { request, context in
            try await page(request, context) { pages, _ in
                .page(try await pages.rollbackPreview(try host(context), to: try number(context)))
            }
        }
        router.post("/console/domains/:host/revisions/:number/rollback") { request, context in
            try await page(request, context) { pages, form in
                let host = try host(context)
                let result = try await pages.api.rollback(host, to: try number(context), reason: form["reason"] ?? "")
                return .page(try pages.published(host, result))
            }
        }
        router.get("/console/domains/:host/apple") { request, context in
            try await page(request, context) { pages, _ in .page(try await pages.apple(try host(context))) }
        }
        router.post("/console/domains/:host/apple/probe") { request, context in
            try await page(request, context) { pages, _ in
                let host = try host(context)
                let report = try await pages.api.probe(host)
                let findings = try ConsoleAPI.plainList(report.results.flatMap(\.findings))
                let verdict = report.ok ? "every URL serves the current revision" : "findings below"
                return .page(try await pages.apple(host, findings: findings, fetched: "Probed: \(verdict)."))
            }
        }
        router.post("/console/domains/:host/apple/cdn") { request, context in
            try await page(request, context) { pages, _ in
                let host = try host(context)
                let message = try await pages.api.checkCDN(host).message
                return .page(try await pages.apple(host, fetched: "Checked: \(message)."))
            }
        }
        router.get("/console/teams") { request, context in
            try await page(request, context) { pages, _ in .page(try await pages.teams()) }
        }
        router.get("/console/teams/:team") { request, context in
            try await page(request, context) { pages, _ in
                guard let team = context.parameters.get("team") else { throw ServiceError.notFound("no such team") }
                return .page(try await pages.team(team))
            }
        }
        router.get("/console/audit") { request, context in
            try await page(request, context) { pages, _ in
                var filter: [String: String] = [:]
                for key in ["domain", "team", "action", "since", "until", "cursor"] {
                    filter[key] = request.uri.queryParameters[Substring(key)].map(String.init) ?? ""
                }
                return .page(try await pages.audit(filter))
            }
        }
    }

    // MARK: - Answers

    /// What a console handler decided: a page, or a redirect (with a cookie to set).
    enum Outcome {
        case page(ConsolePage)
        case redirect(String, cookie: String?)
    }

    var state: RequestState {
        RequestState.current ?? RequestState(requestID: "-", logger: Logger(label: "aasad"), principal: nil)
    }

    /// Runs `body` as the request's session: no session (or a dead one) goes to sign-in; a POST
    /// without the session's CSRF token is 403; a refusal renders as the API's problem.
    private func page(
        _ request: Request, _ context: AppRequestContext,
        _ body: @Sendable (ConsolePages, [String: String]) async throws -> Outcome?
    ) async throws -> Response {
        var state = self.state
        guard let id = ConsoleCookie.value(in: request.headers),
            let (principal, switchable) = try await sessions.principalAndChoices(session: id, logger: state.logger)
        else {
            return Self.redirect("/console/sign-in", cookie: nil)
        }
        let csrf = ConsoleCookie.csrf(for: id)
        state.principal = principal
        state.logger[metadataKey: "token_id"] = .string(principal.tokenID.uuidString.lowercased())
        let pages = ConsolePages(api: ConsoleAPI(api: api), served: api.served, principal: principal)
        return await RequestState.$current.withValue(state) {
            do {
                var form: [String: String] = [:]
                if request.method == .post {
                    form = try await Self.form(request)
                    guard let sent = form["csrf"], TokenSecret.constantTimeEquals(Array(sent.utf8), Array(csrf.utf8))
                    else {
                        throw ServiceError.forbidden(
                            "the form did not carry this session's CSRF token; reload the page")
                    }
                }
                // A page only reads: each domain's state is read once for all its parts.
                let outcome =
                    request.method == .post
                    ? try await body(pages, form)
                    : try await SnapshotMemo.$current.withValue(SnapshotMemo()) { try await body(pages, form) }
                switch outcome {
                case .page(var page):
                    page.switchable = switchable
                    return html(page, who: principal.auditName, csrf: csrf, status: page.status)
                case .redirect(let location, let cookie): return Self.redirect(location, cookie: cookie)
                case nil: return Self.redirect("/console/sign-in", cookie: nil)
                }
            } catch {
                let problem = ProblemResponse.problem(for: error, logger: state.logger)
                let status = ProblemResponse.status(problem.kind)
                let page = ConsolePage(
                    "problem", title: "Refused",
                    [
                        "problem": Self.problemContext(problem, status: status.code, requestID: state.requestID),
                        "back": request.headers[.referer] as Any,
                    ])
                return html(page, who: principal.auditName, csrf: csrf, status: status.code)
            }
        }
    }

    private func signInForm(_ request: Request, _ context: AppRequestContext, error: String?, status: Int = 200)
        async throws -> Response
    {
        let existing = ConsoleCookie.value(in: request.headers, named: Self.signInCookie)
        let pre = existing ?? ConsoleCookie.newID()
        let providers = (oidc?.config.providers ?? []).map { ["name": $0.name, "displayName": $0.displayName] }
        let page = ConsolePage(
            "sign-in", title: "Sign in",
            [
                "error": error as Any, "providers": providers, "tokenSignIn": tokenSignIn,
                "hasProviders": !providers.isEmpty,
            ])
        var response = html(page, who: nil, csrf: ConsoleCookie.csrf(for: pre), status: status)
        if existing == nil {
            response.headers[.setCookie] = ConsoleCookie.setCookie(
                pre, secure: Self.secure(request), named: Self.signInCookie)
        }
        return response
    }

    private func signIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard tokenSignIn else {
            return try await signInForm(
                request, context, error: "Signing in with a token is turned off here; sign in with your provider.",
                status: 403)
        }
        let form = try await Self.form(request)
        guard let pre = ConsoleCookie.value(in: request.headers, named: Self.signInCookie),
            let sent = form["csrf"],
            TokenSecret.constantTimeEquals(Array(sent.utf8), Array(ConsoleCookie.csrf(for: pre).utf8))
        else {
            return try await signInForm(request, context, error: "The form had expired; sign in again.", status: 403)
        }
        let client = client(request, context)
        do {
            let id = try await sessions.signIn(
                token: (form["token"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines), client: client,
                requestID: state.requestID, logger: state.logger)
            return Self.redirect("/console", cookie: ConsoleCookie.setCookie(id, secure: Self.secure(request)))
        } catch let error as ServiceError {
            return try await refused(request, context, error)
        }
    }

    /// `GET /console/sign-in/oidc/{provider}`: off to the provider, with the binding cookie set.
    private func startProviderSignIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let oidc, let name = context.parameters.get("provider") else {
            throw ServiceError.notFound("no sign-in provider")
        }
        do {
            let (location, binding) = try await oidc.start(
                provider: name, client: client(request, context), requestID: state.requestID, logger: state.logger)
            return Self.redirect(location, cookie: ConsoleOIDCCookie.set(binding, secure: Self.secure(request)))
        } catch let error as ServiceError where error.kind != .notFound {
            return try await refused(request, context, error)
        }
    }

    /// `GET /console/sign-in/oidc/{provider}/callback`: the provider's answer. Signed in, the page
    /// sets the session cookie and moves on to `/console` itself: the answer came through a
    /// cross-site redirect, after which the browser would not send a `SameSite=Strict` cookie.
    private func finishProviderSignIn(_ request: Request, _ context: AppRequestContext) async throws -> Response {
        guard let oidc, let name = context.parameters.get("provider") else {
            throw ServiceError.notFound("no sign-in provider")
        }
        var query: [String: String] = [:]
        for key in ["code", "state", "error"] {
            if let value = request.uri.queryParameters[Substring(key)] { query[key] = String(value) }
        }
        do {
            let signedIn = try await oidc.finish(
                provider: name, query: query,
                binding: ConsoleCookie.token(
                    in: request.headers, named: ConsoleOIDCSignIn.bindingCookie,
                    maxLength: ConsoleOIDCLoginSeal.maxCookieLength),
                client: client(request, context), requestID: state.requestID, logger: state.logger)
            var response = html(
                ConsolePage("signed-in", title: "Signed in", ["person": signedIn.person]), who: nil, csrf: "",
                status: 200)
            response.headers[values: .setCookie] = [
                ConsoleCookie.setCookie(signedIn.sessionID, secure: Self.secure(request)),
                ConsoleOIDCCookie.clear(secure: Self.secure(request)),
            ]
            return response
        } catch let error as ServiceError where error.kind != .notFound {
            var response = try await refused(request, context, error)
            response.headers[values: .setCookie].append(ConsoleOIDCCookie.clear(secure: Self.secure(request)))
            return response
        }
    }

    /// The sign-in page, saying why a sign-in (with a token or a provider) did not happen, with the
    /// refusal's status and its `Retry-After`.
    private func refused(_ request: Request, _ context: AppRequestContext, _ error: ServiceError) async throws
        -> Response
    {
        var response = try await signInForm(
            request, context, error: error.detail ?? error.title, status: ProblemResponse.status(error.kind).code)
        if let wait = error.retryAfter { response.headers[.retryAfter] = String(wait) }
        return response
    }

    /// The client the sign-in throttle counts.
    func client(_ request: Request, _ context: AppRequestContext) -> String {
        trustedProxies.client(
            peer: context.clientAddress, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!])
            ?? "unknown"
    }

    // MARK: - HTTP

    /// Every console page: HTML that loads nothing from anywhere but aasad, never cached. Its forms
    /// post to aasad only, except that signing out may end at a configured provider (`formTargets`).
    func html(_ page: ConsolePage, who: String?, csrf: String, status: Int) -> Response {
        Response(
            status: .init(code: status),
            headers: Self.securityHeaders(contentType: "text/html; charset=utf-8", formTargets: formTargets),
            body: .init(byteBuffer: ByteBuffer(string: page.html(who: who, csrf: csrf))))
    }

    /// The providers' origins: a sign-out form's answer sends the browser to one of them, and
    /// `form-action` governs where a form's redirects may lead.
    var formTargets: [String] { oidc?.config.issuerOrigins ?? [] }

    static func redirect(_ location: String, cookie: String?) -> Response {
        var headers = securityHeaders(contentType: "text/plain; charset=utf-8")
        headers[.location] = location
        if let cookie { headers[.setCookie] = cookie }
        return Response(status: .seeOther, headers: headers)
    }

    static func securityHeaders(contentType: String, formTargets: [String] = []) -> HTTPFields {
        let formAction = (["'self'"] + formTargets).joined(separator: " ")
        return [
            .contentType: contentType,
            .contentSecurityPolicy:
                "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action \(formAction)",
            .cacheControl: "no-store",
            HTTPField.Name("X-Content-Type-Options")!: "nosniff",
            HTTPField.Name("Referrer-Policy")!: "same-origin",
            HTTPField.Name("X-Frame-Options")!: "DENY",
        ]
    }

    /// `Secure` cookies when the browser came over TLS: aasad itself speaks plain HTTP behind a
    /// TLS-terminating proxy, which says so in `X-Forwarded-Proto`.
    static func secure(_ request: Request) -> Bool {
        request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https"
    }

    /// The largest form any console page sends (a sign-in token, a reason, a CSRF token).
    static let maxFormBytes = 64 * 1024

    /// A form's fields, under the API's own text rules (issue 41: U+0000 in a publish reason was a
    /// 500 here where the API answers 400, and a form over 64 KB a 500 before sign-in): 413 past
    /// `maxFormBytes`, 400 for a body that is no form, and each value checked as a JSON string of
    /// the API is (`no-nul`, `maxLength`), naming the field.
    static func form(_ request: Request) async throws -> [String: String] {
        var request = request
        let body: ByteBuffer
        do { body = try await request.collectBody(upTo: maxFormBytes) } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge)
        }
        let form: [String: String]
        do { form = try URLEncodedFormDecoder().decode([String: String].self, from: String(buffer: body)) } catch {
            throw ServiceError.badRequest("the form cannot be read as application/x-www-form-urlencoded")
        }
        try RequestBodyMiddleware.check(
            .object(JSONObject(form.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })), at: [])
        return form
    }

    static func problemContext(_ problem: ServiceError, status: Int, requestID: String) -> [String: Any] {
        [
            "title": problem.title, "detail": problem.detail as Any, "status": status, "slug": problem.slug,
            "requestID": requestID,
            "errors": problem.errors.map { ["field": $0.field, "rule": $0.rule, "message": $0.message] },
            "violations": problem.violations.map { ["text": JSONWriter().string($0)] },
        ]
    }

    private func host(_ context: AppRequestContext) throws -> String {
        guard let host = context.parameters.get("host") else { throw ServiceError.notFound("no such domain") }
        return host
    }

    private func number(_ context: AppRequestContext) throws -> Int {
        guard let number = context.parameters.get("number").flatMap({ Int($0) }), number > 0 else {
            throw ServiceError.badRequest("a revision is a number", field: "number", rule: "integer")
        }
        return number
    }
}
