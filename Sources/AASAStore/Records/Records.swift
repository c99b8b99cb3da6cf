import AASAModel
import Foundation

// Rows as the service uses them. Names (team name, host, app ID) travel with the rows that refer
// to them, so the API layer never needs a second query to say whose something is.

public struct TeamRecord: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var displayName: String
    /// The Apple Team ID prefixes (`ABCDE12345`) this team registers apps under (admin-set);
    /// empty: any prefix no other team claims.
    public var appleTeamIDs: [String] = []
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64
}

public struct TokenRecord: Sendable, Equatable {
    public var id: UUID
    public var teamID: Int64?
    public var teamName: String?
    public var name: String
    public var scopes: [TokenScope]
    public var secretHash: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date?
    public var revokedAt: Date?
    public var lastUsedAt: Date?
}

public struct AppRecord: Sendable, Equatable {
    public var id: Int64
    public var appID: String
    public var teamID: Int64
    public var teamName: String
    public var services: [AppService]
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64
    public var platform: AppPlatform = .ios
    /// An Android app's signing certificates' SHA-256 fingerprints (empty for iOS).
    public var fingerprints: [String] = []
    /// What some of those keys are, by fingerprint: `play-signing`, `upload`, `debug` or the team's word.
    public var keyLabels: [String: String] = [:]
    /// The iOS app (of the same team) whose rules an Android app follows on every domain.
    public var rulesFrom: String?
}

public struct DomainRecord: Sendable, Equatable {
    public var id: Int64
    /// Punycode, lower case.
    public var host: String
    public var aliases: [String]
    /// By name, in the order they were given.
    public var substitutionVariables: [SubstitutionVariable]
    public var defaults: DomainDefaults
    public var webRoots: [String]
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64
    public var appOrder: [String]
    public var orderVersion: Int64
    public var currentRevision: Int?
    public var autoPublish: Bool
    public var legacyRootPath: Bool
    /// Moves on every write to the domain's expectations (never reused): a cache key for them.
    public var expectationsVersion: Int64
    /// The environment the domain belongs to (its file names that environment's builds).
    public var environment: String = "default"
}

/// An immutable published file of a domain.
public struct RevisionRecord: Sendable, Equatable {
    public var domainID: Int64
    public var number: Int
    /// Empty when only metadata was read.
    public var bytes: [UInt8]
    public var sha256: String
    public var byteCount: Int
    public var actorToken: UUID?
    public var actorName: String
    public var reason: String
    public var createdAt: Date
    public var diff: JSONValue?
    public var rollbackOf: Int?
    /// The admin overrides (`force` with a reason) made on the domain since the previous revision.
    public var overrides: JSONValue
    /// The source domain's revision a promotion took this revision's rules from.
    public var promotedFrom: PromotionSource? = nil

    public init(
        domainID: Int64, number: Int, bytes: [UInt8], sha256: String, byteCount: Int, actorToken: UUID?,
        actorName: String, reason: String, createdAt: Date, diff: JSONValue?, rollbackOf: Int?,
        overrides: JSONValue = .array([])
    ) {
        self.overrides = overrides
        self.domainID = domainID
        self.number = number
        self.bytes = bytes
        self.sha256 = sha256
        self.byteCount = byteCount
        self.actorToken = actorToken
        self.actorName = actorName
        self.reason = reason
        self.createdAt = createdAt
        self.diff = diff
        self.rollbackOf = rollbackOf
    }
}

/// What a replica serves for one host: the current revision of the domain it belongs to.
public struct ServedRevision: Sendable, Equatable {
    public var host: String
    public var aliases: [String]
    public var number: Int
    public var bytes: [UInt8]
    public var sha256: String

    public init(host: String, aliases: [String], number: Int, bytes: [UInt8], sha256: String) {
        self.host = host
        self.aliases = aliases
        self.number = number
        self.bytes = bytes
        self.sha256 = sha256
    }
}

public struct GrantRecord: Sendable, Equatable {
    public var domainID: Int64
    public var host: String
    public var teamID: Int64
    public var teamName: String
    public var pathPrefixes: [String]
    /// The domain-wide services (webcredentials, appclips, activitycontinuation) the team's apps
    /// may be listed for on this domain.
    public var services: [AppService] = []
    public var createdAt: Date
    public var updatedAt: Date
    public var version: Int64
}

/// One rule: a `components` entry exactly as stored, and the ID the API names it by.
public struct StoredRule: Sendable, Equatable {
    public var id: UUID
    public var component: JSONValue

    public init(id: UUID, component: JSONValue) {
        self.id = id
        self.component = component
    }
}

public struct RuleSetRecord: Sendable, Equatable {
    public var domainID: Int64
    public var appPK: Int64
    public var appID: String
    public var teamName: String
    public var rules: [StoredRule]
    /// 0 when the app has no rule set on the domain yet.
    public var version: Int64
    /// An Android app's statement without dynamic rules: its manifest alone decides which of the
    /// domain's URLs it opens (`rules` is then empty).
    public var manifestDecides: Bool = false
}

/// Everything a domain's document is rendered from, read in one transaction.
public struct DomainSnapshot: Sendable {
    public var domain: DomainRecord
    public var grants: [GrantRecord]
    /// Apps of teams holding a grant, and apps with rules on the domain.
    public var apps: [AppRecord]
    public var ruleSets: [RuleSetRecord]
    /// Teams whose apps are left out (suspended on this domain or on every domain).
    public var suspendedTeams: [String] = []
    /// Every build, in every environment, of the apps above (`environmentBuilds` picks the domain's).
    public var builds: [BuildRecord] = []
    /// Read only when the domain has an Android app (what its key warnings need): whether the
    /// domain's environment is production (the last in promotion order), and every fingerprint
    /// labelled `debug` anywhere, with the packages (apps or builds) whose debug key it is.
    public var androidKeys: AndroidKeyFacts?
}

public struct AndroidKeyFacts: Sendable, Equatable {
    public var production: Bool
    public var debugKeys: [String: [String]]

    public init(production: Bool, debugKeys: [String: [String]]) {
        self.production = production
        self.debugKeys = debugKeys
    }
}

public struct AuditEventRecord: Sendable, Equatable {
    public var id: Int64
    public var at: Date
    public var actorToken: UUID?
    public var actorName: String
    public var actorTeam: String?
    public var team: String?
    public var domain: String?
    public var appID: String?
    public var action: String
    public var entityType: String
    public var entityID: String
    public var before: JSONValue?
    public var after: JSONValue?
    public var requestID: String?

    public init(
        actorToken: UUID?, actorName: String, actorTeam: String?, team: String?, domain: String?,
        appID: String?, action: String, entityType: String, entityID: String,
        before: JSONValue?, after: JSONValue?, requestID: String?
    ) {
        self.id = 0
        self.at = Date()
        self.actorToken = actorToken
        self.actorName = actorName
        self.actorTeam = actorTeam
        self.team = team
        self.domain = domain
        self.appID = appID
        self.action = action
        self.entityType = entityType
        self.entityID = entityID
        self.before = before
        self.after = after
        self.requestID = requestID
    }
}
