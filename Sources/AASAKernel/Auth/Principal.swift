import AASAModel
import AASAStore
import Foundation

/// Who is asking: the token that authenticated the request.
package struct Principal: Sendable {
    package var tokenID: UUID
    package var tokenName: String
    /// nil for an organisation admin token.
    package var teamID: Int64?
    package var teamName: String?
    package var scopes: Set<TokenScope>
    /// When the token expires: the tokens it creates may not outlive it.
    package var expiresAt: Date? = nil

    package var isAdmin: Bool { scopes.contains(.admin) }
    package var canWrite: Bool { isAdmin || scopes.contains(.write) }

    package func isMember(of teamID: Int64) -> Bool { self.teamID == teamID }

    /// May see the team's private resources (apps, rules, tokens): admins and the team's tokens.
    package func canRead(team teamID: Int64) -> Bool { isAdmin || isMember(of: teamID) }

    /// The actor as the audit trail records it.
    package var auditName: String { teamName.map { "\($0)/\(tokenName)" } ?? tokenName }
}

/// Looks a bearer token up and decides whether it is valid now.
package struct Authenticator: Sendable {
    package let database: Database
    /// The principals of tokens seen lately (nil: every request asks the database).
    package let cache: PrincipalCache?

    package init(database: Database, cache: PrincipalCache? = nil) {
        self.database = database
        self.cache = cache
    }

    /// The principal from memory, when the read model may answer for this token now (no query),
    /// with the read generation confirmed for this request.
    package func cached(bearer token: String) async -> (principal: Principal, synced: UInt64)? {
        await cache?.principal(hash: TokenSecret.hash(token))
    }

    package enum Failure: Error {
        case malformed, unknown, revoked, expired
        package var message: String {
            switch self {
            case .malformed, .unknown: "the token is not valid"
            case .revoked: "the token has been revoked"
            case .expired: "the token has expired"
            }
        }
    }

    package func authenticate(bearer token: String, session: DBSession) async throws -> Principal {
        guard let id = TokenSecret.tokenID(of: token) else { throw Failure.malformed }
        // Read before the database is: a change committed after this moves it, and so the entry.
        let stamp = cache?.generation.current
        let hash = TokenSecret.hash(token)
        guard let record = try await session.token(id: id) else {
            // Compare anyway, so an unknown ID costs what a known one does.
            _ = TokenSecret.constantTimeEquals(hash, [UInt8](repeating: 0, count: 32))
            throw Failure.unknown
        }
        guard TokenSecret.constantTimeEquals(hash, record.secretHash) else { throw Failure.unknown }
        let principal = try await principal(record, session: session)
        if let cache, let stamp {
            // Used now if `principal` recorded it (once a minute), else when the row says.
            let lastUsedAt = record.lastUsedAt.flatMap { Date().timeIntervalSince($0) < 60 ? $0 : nil } ?? Date()
            cache.remember(principal, lastUsedAt: lastUsedAt, hash: hash, generation: stamp)
        }
        return principal
    }

    /// The principal of a token already proven (a console session holds its ID), if the token is
    /// valid now: revocation and expiry are checked here, on every request, for both entry points.
    package func principal(tokenID: UUID, session: DBSession) async throws -> Principal {
        guard let record = try await session.token(id: tokenID) else { throw Failure.unknown }
        return try await principal(record, session: session)
    }

    private func principal(_ record: TokenRecord, session: DBSession) async throws -> Principal {
        let id = record.id
        if record.revokedAt != nil { throw Failure.revoked }
        if let expiry = record.expiresAt, expiry <= Date() { throw Failure.expired }
        // Use is recorded at most once a minute: the row just read says when it last was, so most
        // requests make no write at all.
        if record.lastUsedAt.map({ Date().timeIntervalSince($0) >= 60 }) ?? true {
            try await session.touchToken(id: id)
        }
        return Principal(
            tokenID: record.id, tokenName: record.name, teamID: record.teamID, teamName: record.teamName,
            scopes: Set(record.scopes), expiresAt: record.expiresAt)
    }
}
