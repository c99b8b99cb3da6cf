import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation
import Logging
import Metrics

/// `POST /v1/oidc/token` (RFC 8693 token exchange): a CI job's ID token in, a short-lived team
/// token out, with no secret stored in the pipeline.
///
/// The token is verified (`IDTokenVerifier`), then matched against every team's trust rules for
/// its issuer. The team is the one whose rules match (or the one the request names as
/// `audience`, when several do); the scopes are those of its matching rules (or the `scope`
/// asked for, if they cover it). In one transaction: the `jti` is recorded (an ID token is
/// exchanged once), the token is made, valid until the ID token's `exp` or an hour, whichever
/// is first, and `token.exchange` is audited with the job's claims, so each later change's
/// audit leads back to the job that made it. A refusal is 401 with its reason, counted in
/// `aasad_oidc_exchanges_total{outcome}`, and writes nothing.
package struct TokenExchange: Sendable {
    package static let grantType = "urn:ietf:params:oauth:grant-type:token-exchange"
    package static let subjectTypes = [
        "urn:ietf:params:oauth:token-type:id_token", "urn:ietf:params:oauth:token-type:jwt",
    ]
    package static let issuedType = "urn:ietf:params:oauth:token-type:access_token"
    package static let maxLifetime: TimeInterval = 3600

    package struct Request: Sendable {
        package var grantType: String
        package var subjectToken: String
        package var subjectTokenType: String
        /// The team, when the token's claims match rules of more than one.
        package var audience: String?
        /// Space-separated scopes asked for (default: all the matching rules give).
        package var scope: String?

        package init(
            grantType: String, subjectToken: String, subjectTokenType: String, audience: String?, scope: String?
        ) {
            self.grantType = grantType
            self.subjectToken = subjectToken
            self.subjectTokenType = subjectTokenType
            self.audience = audience
            self.scope = scope
        }
    }

    package struct Issued: Sendable {
        package var token: String
        package var tokenID: UUID
        package var team: String
        package var scopes: [TokenScope]
        package var expiresIn: Int
    }

    package let work: RequestWork
    package let verifier: IDTokenVerifier
    package let requestID: String?

    package init(work: RequestWork, verifier: IDTokenVerifier, requestID: String?) {
        self.work = work
        self.verifier = verifier
        self.requestID = requestID
    }

    package func exchange(_ request: Request, now: Date = Date()) async throws -> Issued {
        // Every exchange is counted once, under its outcome, whatever refuses it (issue 49).
        do {
            guard request.grantType == Self.grantType else {
                throw ServiceError.invalid(field: "grant_type", rule: "grant-type", "grant_type is \(Self.grantType)")
            }
            guard Self.subjectTypes.contains(request.subjectTokenType) else {
                throw ServiceError.invalid(
                    field: "subject_token_type", rule: "token-type",
                    "subject_token_type is \(Self.subjectTypes.joined(separator: " or "))")
            }
            let issued = try await exchangeVerified(request, now: now)
            Self.count("issued")
            return issued
        } catch let refusal as ExchangeRefusal {
            Self.count(refusal.reason.rawValue)
            work.logger.notice(
                "token exchange refused", metadata: ["reason": .string(refusal.reason.rawValue)])
            throw refusal.serviceError
        } catch let problem as ServiceError {
            Self.count("invalid-request")
            throw problem
        } catch {
            Self.count("error")
            throw error
        }
    }

    /// Every value `aasad_oidc_exchanges_total{outcome}` takes, so each series exists from the start.
    package static let outcomes =
        ["issued", "invalid-request", "error"] + ExchangeRefusal.Reason.allCases.map(\.rawValue)

    private static func count(_ outcome: String) {
        Counter(label: "aasad_oidc_exchanges_total", dimensions: [("outcome", outcome)]).increment()
    }

    private func exchangeVerified(_ request: Request, now: Date) async throws -> Issued {
        let (claims, issuer) = try await verifier.verify(request.subjectToken, now: now) { url in
            try await work.read { try await $0.oidcIssuer(url: url) }
        }
        return try await work.transaction { session in
            let (team, scopes) = try await Self.match(claims, issuer: issuer, request: request, session: session)
            let idTokenExpiry = Date(timeIntervalSince1970: claims.expires ?? 0)
            let expiry = min(idTokenExpiry, now.addingTimeInterval(Self.maxLifetime))
            // The jti is kept as long as the ID token could be presented (its exp and the leeway),
            // not as long as the token issued for it lives, which may be shorter.
            guard
                try await session.recordOIDCExchange(
                    issuer: issuer.name, jti: claims.id ?? "",
                    expiresAt: idTokenExpiry.addingTimeInterval(OIDCClaimCheck.leeway))
            else {
                throw ExchangeRefusal(.replay, "this ID token was exchanged already; ask the CI for a new one")
            }
            let job = Self.job(claims, issuer: issuer)
            let actor = Actor(
                tokenID: nil, name: "oidc \(issuer.name): \(job.who)", team: team.name, requestID: requestID)
            let (token, secret) = try await TokenIssuer.issueExchanged(
                session, team: team, name: "oidc \(issuer.name) \(job.who)", scopes: scopes, expiresAt: expiry,
                job: job.audit, by: actor)
            return Issued(
                token: secret, tokenID: token.id, team: team.name, scopes: scopes,
                expiresIn: max(0, Int(expiry.timeIntervalSince(now))))
        }
    }

    /// The team whose rules match and the scopes they give, or why none may be had.
    static func match(_ claims: JobClaims, issuer: OIDCIssuerRecord, request: Request, session: DBSession)
        async throws -> (TeamRecord, [TokenScope])
    {
        var matched: [(team: TeamRecord, scopes: Set<TokenScope>)] = []
        for (team, rules) in try await session.trustRules(issuer: issuer.name) {
            var scopes = Set(rules.filter { TrustRuleInput.matches($0, claims.claims) }.flatMap(\.scopes))
            // A write token reads too: a job may narrow what it gets to read.
            if scopes.contains(.write) { scopes.insert(.read) }
            if !scopes.isEmpty { matched.append((team, scopes)) }
        }
        if let audience = request.audience, !audience.isEmpty {
            matched = matched.filter { $0.team.name == audience }
        }
        guard let first = matched.first else {
            throw ExchangeRefusal(
                .noRule,
                request.audience.map { "no trust rule of team \($0) matches this token's claims" }
                    ?? "no team's trust rule matches this token's claims")
        }
        guard matched.count == 1 else {
            throw ExchangeRefusal(
                .ambiguousTeam,
                "rules of several teams match (\(matched.map(\.team.name).joined(separator: ", "))): "
                    + "name one as audience"
            )
        }
        var scopes = first.scopes.contains(.write) ? [.write] : first.scopes
        if let asked = request.scope?.split(separator: " ").map(String.init), !asked.isEmpty {
            let wanted = Set(asked.compactMap(TokenScope.init(rawValue:)))
            guard wanted.count == Set(asked).count, wanted.isSubset(of: first.scopes) else {
                throw ExchangeRefusal(
                    .scope,
                    "the matching rules give \(first.scopes.map(\.rawValue).sorted().joined(separator: " ")) only")
            }
            scopes = wanted
        }
        return (first.team, scopes.sorted())
    }

    /// The job as the audit names it: issuer, repository (or project), ref, workflow (its name and
    /// file), run and commit, from GitHub's or GitLab's claim names.
    static func job(_ claims: JobClaims, issuer: OIDCIssuerRecord) -> (who: String, audit: JSONValue) {
        let c = claims.claims
        let repository = c["repository"] ?? c["project_path"]
        var o: JSONObject = ["issuer": .string(issuer.name)]
        let fields: [(String, String?)] = [
            ("subject", claims.subject), ("repository", repository), ("ref", c["ref"]),
            // GitHub names the workflow, its file at a ref, and (for a reusable one) the called
            // file; GitLab names the pipeline's configuration file at a ref.
            ("workflow", c["workflow"]), ("workflowRef", c["workflow_ref"]),
            ("jobWorkflowRef", c["job_workflow_ref"]), ("ciConfigRefURI", c["ci_config_ref_uri"]),
            ("runID", c["run_id"] ?? c["pipeline_id"]), ("runAttempt", c["run_attempt"]), ("jobID", c["job_id"]),
            ("event", c["event_name"] ?? c["pipeline_source"]), ("sha", c["sha"]),
            ("actor", c["actor"] ?? c["user_login"]),
            ("jti", claims.id),
        ]
        for (name, value) in fields { if let value { o.append(name, .string(value)) } }
        let who = [repository ?? claims.subject ?? "?", c["ref"]].compactMap { $0 }.joined(separator: "@")
        return (String(who.prefix(200)), .object(o))
    }
}
