import AASAStore
import Foundation

/// Making a token: a fresh secret, only its SHA-256 stored, and the audit event, in the caller's
/// transaction. The API (`POST /v1/teams/{team}/tokens`) and `aasad token create --admin` both
/// come here.
public enum TokenIssuer {
    static func issue(_ session: DBSession, team: TeamRecord?, name: String, scopes: [TokenScope], expiresAt: Date?,
                      by actor: Actor) async throws -> (token: TokenRecord, secret: String) {
        let generated = TokenSecret.generate()
        let token = try await session.insertToken(id: generated.id, teamID: team?.id, name: name, scopes: scopes,
                                                  secretHash: generated.hash, expiresAt: expiresAt)
        try await session.appendAudit(AuditEntry(action: "token.create", entityType: "token", entityID: token.id.uuidString.lowercased(),
                                                 team: team?.name, after: AuditJSON.token(token)).record(by: actor))
        return (token, generated.token)
    }

    /// An organisation admin token made on the server host (no token to authenticate with yet);
    /// returns the token, which is shown once.
    public static func createAdminToken(_ session: DBSession, name: String, expiresAt: Date?) async throws -> String {
        try await issue(session, team: nil, name: name, scopes: [.admin], expiresAt: expiresAt,
                        by: Actor(tokenID: nil, name: "aasad token create (server host)", team: nil, requestID: nil)).secret
    }
}
