import Foundation
import PostgresNIO

/// One related origin of a domain's `/.well-known/webauthn`, with the team that added it (nil: an admin).
public struct RelatedOriginRecord: Sendable, Equatable {
    public var origin: String
    public var team: String?
    public var createdAt: Date

    public init(origin: String, team: String?, createdAt: Date) {
        self.origin = origin
        self.team = team
        self.createdAt = createdAt
    }
}

/// The passkey tables (migration 0020): each domain's related origins, the apps that are passkey
/// clients of each relying party, and each relying party's origins as last announced.
extension DBSession {
    /// The domain's related origins, by origin.
    public func relatedOrigins(domainID: Int64) async throws -> [RelatedOriginRecord] {
        try await all(
            """
            SELECT r.origin, t.name, r.created_at FROM related_origins r LEFT JOIN teams t ON t.id = r.team_id
            WHERE r.domain_id = \(domainID) ORDER BY r.origin
            """, as: (String, String?, Date).self
        ).map { RelatedOriginRecord(origin: $0.0, team: $0.1, createdAt: $0.2) }
    }

    public func insertRelatedOrigin(domainID: Int64, origin: String, teamID: Int64?) async throws {
        try await write(
            "INSERT INTO related_origins (domain_id, origin, team_id) VALUES (\(domainID), \(origin), \(teamID))")
    }

    public func deleteRelatedOrigin(domainID: Int64, origin: String) async throws {
        try await write("DELETE FROM related_origins WHERE domain_id = \(domainID) AND origin = \(origin)")
    }

    /// The relying parties the app is a passkey client of, sorted.
    public func passkeyRelyingParties(appID: Int64) async throws -> [String] {
        try await all("SELECT rp_id FROM passkey_clients WHERE app_id = \(appID) ORDER BY rp_id", as: String.self)
    }

    /// Replaces the app's relying parties.
    public func setPasskeyRelyingParties(appID: Int64, _ rpIDs: [String]) async throws {
        try await write("DELETE FROM passkey_clients WHERE app_id = \(appID)")
        for rp in Set(rpIDs).sorted() {
            try await write("INSERT INTO passkey_clients (app_id, rp_id) VALUES (\(appID), \(rp))")
        }
    }

    /// The app IDs of the relying party's passkey clients, sorted.
    public func passkeyClientAppIDs(rpID: String) async throws -> [String] {
        try await all(
            """
            SELECT a.app_id FROM passkey_clients c JOIN apps a ON a.id = c.app_id WHERE c.rp_id = \(rpID)
            ORDER BY a.app_id
            """, as: String.self)
    }

    /// The relying parties whose clients include any of these apps (by their row IDs).
    public func relyingParties(ofApps appIDs: [Int64]) async throws -> [String] {
        try await all(
            "SELECT DISTINCT rp_id FROM passkey_clients WHERE app_id = ANY(\(appIDs)) ORDER BY rp_id",
            as: String.self)
    }

    /// The relying party's origins as last announced, nil before the first announcement.
    public func announcedOrigins(rpID: String, forUpdate: Bool = false) async throws -> [String]? {
        try await first(
            """
            SELECT origins FROM passkey_origin_sets WHERE rp_id = \(rpID) \(unescaped: forUpdate ? "FOR UPDATE" : "")
            """, as: [String].self)
    }

    public func recordAnnouncedOrigins(rpID: String, _ origins: [String]) async throws {
        try await write(
            """
            INSERT INTO passkey_origin_sets (rp_id, origins) VALUES (\(rpID), \(origins))
            ON CONFLICT (rp_id) DO UPDATE SET origins = excluded.origins, changed_at = now()
            """)
    }

    /// Every relying party whose origins may move: those with clients, those whose domain lists
    /// related origins, and those announced before.
    public func relyingPartiesWithOrigins() async throws -> [String] {
        try await all(
            """
            SELECT rp_id FROM passkey_clients UNION SELECT d.host FROM domains d
            WHERE EXISTS (SELECT 1 FROM related_origins r WHERE r.domain_id = d.id)
            UNION SELECT rp_id FROM passkey_origin_sets ORDER BY 1
            """, as: String.self)
    }
}
