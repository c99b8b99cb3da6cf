import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAStore
import Foundation

/// Making a token: a fresh secret, only its SHA-256 stored, and the audit event, in the caller's
/// transaction. The API (`POST /v1/teams/{team}/tokens`) and `aasad token create --admin` both
/// come here.
public enum TokenIssuer {
    /// - Parameter parent: the team token creating this one, if a team token is: the new token
    ///   lives no longer than it (no expiry given: its expiry; a later one: 422) and is revoked with it.
    package static func issue(
        _ session: DBSession, team: TeamRecord?, name: String, scopes: [TokenScope], expiresAt: Date?,
        parent: Principal? = nil, by actor: Actor
    ) async throws -> (token: TokenRecord, secret: String) {
        var expiry = expiresAt
        if let parent, let limit = parent.expiresAt {
            if let wanted = expiresAt {
                guard wanted <= limit else {
                    throw ServiceError.invalid(
                        field: "/expiresAt", rule: "outlives-parent",
                        """
                        a token may not outlive the token that creates it (which expires at \
                        \(ISO8601DateFormatter().string(from: limit)))
                        """
                    )
                }
            } else {
                expiry = limit
            }
        }
        return try await record(
            session, team: team, name: name, scopes: scopes, expiresAt: expiry, parentID: parent?.tokenID, by: actor)
    }

    /// A token for a CI job whose ID token was verified (`TokenExchange`): audited as
    /// `token.exchange`, with the job's claims beside the token.
    package static func issueExchanged(
        _ session: DBSession, team: TeamRecord, name: String, scopes: [TokenScope], expiresAt: Date, job: JSONValue,
        by actor: Actor
    ) async throws -> (token: TokenRecord, secret: String) {
        try await record(
            session, team: team, name: name, scopes: scopes, expiresAt: expiresAt, parentID: nil, by: actor,
            action: "token.exchange", job: job)
    }

    /// A token for a person signed in to the console through an OpenID provider: it lives until
    /// their ID token expires (the bound within which their groups are asked again), audited as
    /// `token.console-sign-in` with the person beside the token. `team` nil: an admin token.
    package static func issueForPerson(
        _ session: DBSession, team: TeamRecord?, name: String, scopes: [TokenScope], expiresAt: Date,
        person: JSONValue, by actor: Actor
    ) async throws -> TokenRecord {
        try await record(
            session, team: team, name: name, scopes: scopes, expiresAt: expiresAt, parentID: nil, by: actor,
            action: "token.console-sign-in", job: person, detailKey: "person"
        ).token
    }

    private static func record(
        _ session: DBSession, team: TeamRecord?, name: String, scopes: [TokenScope], expiresAt: Date?,
        parentID: UUID?, by actor: Actor, action: String = "token.create", job: JSONValue? = nil,
        detailKey: String = "job"
    ) async throws -> (token: TokenRecord, secret: String) {
        let generated = TokenSecret.generate()
        let token = try await session.insertToken(
            id: generated.id, teamID: team?.id, name: name, scopes: scopes,
            secretHash: generated.hash, expiresAt: expiresAt, parentID: parentID)
        var after = AuditJSON.token(token)
        if let job, case .object(var o) = after {
            o.append(detailKey, job)
            after = .object(o)
        }
        try await session.appendAudit(
            AuditEntry(
                action: action, entityType: "token", entityID: token.id.uuidString.lowercased(),
                team: team?.name, after: after
            ).record(by: actor))
        return (token, generated.token)
    }

    /// An organisation admin token made on the server host (no token to authenticate with yet);
    /// returns the token, which is shown once.
    public static func createAdminToken(_ session: DBSession, name: String, expiresAt: Date?) async throws -> String {
        try await record(
            session, team: nil, name: name, scopes: [.admin], expiresAt: expiresAt, parentID: nil,
            by: Actor(tokenID: nil, name: "aasad token create (server host)", team: nil, requestID: nil)
        ).secret
    }
}
