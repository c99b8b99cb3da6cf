import AASAModel
import Foundation

/// An OIDC issuer the organisation trusts (issue 39): its short name, the issuer URL whose
/// discovery document lists its keys, and the audience its ID tokens must carry.
public struct OIDCIssuerRecord: Sendable, Equatable {
    public var name: String
    public var issuer: String
    public var audience: String
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64

    public init(name: String, issuer: String, audience: String, createdAt: Date, updatedAt: Date, version: Int64) {
        self.name = name
        self.issuer = issuer
        self.audience = audience
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.version = version
    }
}

/// One of a team's trust rules: an ID token from `issuer` whose claims match every one of
/// `claims` (exactly, or by prefix where the value ends in `*`) gets `scopes` in the team.
public struct TrustRule: Sendable, Equatable, Codable {
    public var issuer: String
    public var claims: [String: String]
    public var scopes: [TokenScope]

    public init(issuer: String, claims: [String: String], scopes: [TokenScope]) {
        self.issuer = issuer
        self.claims = claims
        self.scopes = scopes
    }
}

/// A team's trust rules in order, with the version its `If-Match` names (0: none set yet).
public struct TeamTrustRecord: Sendable, Equatable {
    public var teamID: Int64
    public var teamName: String
    public var rules: [TrustRule]
    public var version: Int64
    public var updatedAt: Date?
}
