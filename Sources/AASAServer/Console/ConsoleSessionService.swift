import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices
import AASAStore
import Foundation
import Logging

/// Console sign-in, sign-out and the session behind each console request. A session speaks as the
/// token it was made from: `Authenticator` checks that token's revocation and expiry on every
/// request, as it does for a bearer token, so revoking the token ends the session at once.
struct ConsoleSessionService: Sendable {
    let database: Database
    let authenticator: Authenticator
    let limiter: SignInLimiter
    /// A session unused this long is gone.
    let idle: Duration
    /// A session this long after its sign-in is gone, however busy.
    let lifetime: Duration

    /// A new session for `token`, or 401 (audited, and counted against `client`). A valid token
    /// always signs in (issue 41: five failures from one address, which behind a TLS proxy is every
    /// user, locked every valid token out for a minute): only failures are throttled, and past
    /// the limit a failure is 429 with Retry-After, logged but no longer audited row by row.
    func signIn(token: String, client: String, requestID: String, logger: Logger) async throws -> String {
        let work = RequestWork(database: database, logger: logger)
        do {
            return try await work.transaction { session in
                let principal = try await authenticator.authenticate(bearer: token, session: session)
                let id = ConsoleCookie.newID()
                try await session.insertConsoleSession(idHash: ConsoleCookie.hash(id), tokenID: principal.tokenID)
                try await session.appendAudit(
                    Self.entry("console.sign-in", principal.tokenID.uuidString.lowercased(), team: principal.teamName)
                        .record(by: Actor(principal, requestID: requestID)))
                return id
            }
        } catch let failure as Authenticator.Failure {
            // The token's ID part is public (logs carry it); the secret never is.
            let tokenID = TokenSecret.tokenID(of: token)?.uuidString.lowercased() ?? "-"
            logger.notice(
                "console sign-in failed", metadata: ["client": .string(client), "token_id": .string(tokenID)])
            try limiter.admit(client)
            limiter.recordFailure(client)
            try await work.transaction { session in
                try await session.appendAudit(
                    Self.entry("console.sign-in-failed", tokenID, team: nil).record(
                        by: Actor(tokenID: nil, name: "console sign-in from \(client)", team: nil, requestID: requestID)
                    ))
            }
            throw ServiceError.unauthorized(failure.message)
        }
    }

    /// The principal of the session `id` names, and whether it may switch to another team's token;
    /// nil when there is none: never made, signed out, idle too long, or its token revoked or
    /// expired (such a session is deleted on the way).
    func principalAndChoices(session id: String, logger: Logger) async throws -> (
        principal: Principal, switchable: Bool
    )? {
        let hash = ConsoleCookie.hash(id)
        return try await database.read(logger: logger) { session in
            guard let found = try await session.consoleSession(idHash: hash, idle: idle, lifetime: lifetime) else {
                return nil
            }
            do {
                let principal = try await authenticator.principal(tokenID: found.tokenID, session: session)
                if Date().timeIntervalSince(found.lastSeen) >= 60 {
                    try await session.touchConsoleSession(idHash: hash)
                }
                return (principal, found.choices > 1)
            } catch is Authenticator.Failure {
                try await session.deleteConsoleSession(idHash: hash)
                return nil
            }
        }
    }

    /// Ends the session (and revokes the tokens a provider sign-in made for it), audited under the
    /// person's name; returns who it was, for the provider's logout.
    func signOut(session id: String, principal: Principal, requestID: String, logger: Logger) async throws
        -> ConsoleSessionPerson?
    {
        try await RequestWork(database: database, logger: logger).transaction { session in
            let person = try await session.endConsoleSession(idHash: ConsoleCookie.hash(id))
            try await session.appendAudit(
                Self.entry("console.sign-out", principal.tokenID.uuidString.lowercased(), team: principal.teamName)
                    .record(by: Actor(principal, requestID: requestID)))
            return person
        }
    }

    /// Who a provider-made session is, and the tokens it may speak as, in one read (nil for a token
    /// sign-in).
    func person(session id: String, logger: Logger) async throws -> (ConsoleSessionPerson, [TokenRecord])? {
        try await database.read(logger: logger) { session in
            guard let person = try await session.consoleSessionPerson(idHash: ConsoleCookie.hash(id)) else {
                return nil
            }
            return (person, try await session.tokens(ids: person.tokenIDs))
        }
    }

    /// Makes the session speak as another of its person's tokens (another team); 404 if not one.
    func switchTeam(session id: String, to tokenID: UUID, principal: Principal, requestID: String, logger: Logger)
        async throws
    {
        try await RequestWork(database: database, logger: logger).transaction { session in
            guard try await session.switchConsoleSession(idHash: ConsoleCookie.hash(id), to: tokenID) else {
                throw ServiceError.notFound("this session cannot act for that team")
            }
            try await session.appendAudit(
                Self.entry("console.switch-team", tokenID.uuidString.lowercased(), team: principal.teamName)
                    .record(by: Actor(principal, requestID: requestID)))
        }
    }

    private static func entry(_ action: String, _ tokenID: String, team: String?) -> AuditEntry {
        AuditEntry(
            action: action, entityType: "console-session", entityID: tokenID, team: team, domain: nil, appID: nil,
            before: nil, after: nil)
    }
}
