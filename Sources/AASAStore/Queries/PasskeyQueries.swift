import Foundation
import PostgresNIO

/// What relying parties' origins are made of (`passkeyOriginInputs`).
public struct PasskeyOriginInputs: Sendable {
    public struct AndroidClient: Sendable {
        public var appID: String
        public var fingerprints: [String]
        public var keyLabels: [String: String]
    }

    /// Each domain's related origins, by its host, sorted.
    public var related: [String: [String]] = [:]
    /// Each relying party's Android clients, by RP ID, sorted by app ID.
    public var android: [String: [AndroidClient]] = [:]
    /// The RP IDs that have clients or were announced before.
    public var relyingParties: [String] = []

    public init() {}
}

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

    /// Whether any relying party has something to announce or was announced: one read, so that a
    /// registry that uses no passkeys pays one round trip a change for the announcement.
    public func hasPasskeyState() async throws -> Bool {
        try await first(
            """
            SELECT EXISTS (SELECT 1 FROM passkey_clients) OR EXISTS (SELECT 1 FROM related_origins)
                OR EXISTS (SELECT 1 FROM passkey_origin_sets)
            """, as: Bool.self) ?? false
    }

    /// Every relying party's origins as last announced.
    public func announcedOriginSets() async throws -> [String: [String]] {
        var sets: [String: [String]] = [:]
        for (rp, origins) in try await all(
            "SELECT rp_id, origins FROM passkey_origin_sets", as: (String, [String]).self)
        {
            sets[rp] = origins
        }
        return sets
    }

    /// What every relying party's origins are made of, in three reads whatever their number: each
    /// domain's related origins (by host), each Android client's keys (by RP ID), and the RP IDs
    /// that have clients or were announced before.
    public func passkeyOriginInputs() async throws -> PasskeyOriginInputs {
        var inputs = PasskeyOriginInputs()
        for (host, origin) in try await all(
            """
            SELECT d.host, r.origin FROM related_origins r JOIN domains d ON d.id = r.domain_id
            ORDER BY d.host, r.origin
            """, as: (String, String).self)
        {
            inputs.related[host, default: []].append(origin)
        }
        for (rp, appID, fingerprints, labels) in try await all(
            """
            SELECT c.rp_id, a.app_id, a.fingerprints, a.key_labels::text FROM passkey_clients c
            JOIN apps a ON a.id = c.app_id WHERE a.platform = 'android' ORDER BY c.rp_id, a.app_id
            """, as: (String, String, [String], String).self)
        {
            inputs.android[rp, default: []].append(
                .init(
                    appID: appID, fingerprints: fingerprints,
                    keyLabels: StoredJSON.decode([String: String].self, labels) ?? [:]))
        }
        inputs.relyingParties = try await all(
            "SELECT rp_id FROM passkey_clients UNION SELECT rp_id FROM passkey_origin_sets", as: String.self)
        return inputs
    }

    /// Records the relying party's origins when they differ from those last announced; whether they
    /// did. A concurrent change that wrote the same list first makes this one find nothing to say.
    public func recordAnnouncedOrigins(rpID: String, _ origins: [String]) async throws -> Bool {
        try await writeReturning(
            """
            INSERT INTO passkey_origin_sets AS s (rp_id, origins) VALUES (\(rpID), \(origins))
            ON CONFLICT (rp_id) DO UPDATE SET origins = excluded.origins, changed_at = now()
            WHERE s.origins IS DISTINCT FROM excluded.origins
            RETURNING rp_id
            """, as: String.self
        ).count == 1
    }
}
