import Foundation

/// A team's golden URL on a domain: what must happen to `url` (`ExpectationKind`), checked on
/// every change (`source` draft) or on every publish (`source` published).
public struct ExpectationRecord: Sendable, Equatable {
    public var id: UUID
    public var domainID: Int64
    public var teamID: Int64
    public var teamName: String
    public var url: String
    public var kind: String
    public var appID: String?
    public var source: String
    public var description: String?
    public var version: Int64
    /// The promise as it stands: false only after an admin forced a change that broke it.
    public var holdsInDraft: Bool
    public var holdsWhenPublished: Bool
    /// The app the last evaluation saw open the URL (nil: none).
    public var draftApp: String?
    public var publishedApp: String?
    /// Written last by an admin's API call: it may pin any URL of the domain, and always binds.
    public var adminPinned: Bool
    /// Not stored: a team's expectation whose URL lies outside the team's current grant (set by
    /// the service that read the grants). It is evaluated and shown, and blocks no change.
    public var outOfGrant: Bool = false
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID, domainID: Int64, teamID: Int64, teamName: String, url: String, kind: String, appID: String?,
        source: String, description: String?, version: Int64 = 1, holdsInDraft: Bool = true,
        holdsWhenPublished: Bool = true, draftApp: String? = nil, publishedApp: String? = nil,
        adminPinned: Bool = false, createdAt: Date = Date(), updatedAt: Date = Date()
    ) {
        self.id = id
        self.domainID = domainID
        self.teamID = teamID
        self.teamName = teamName
        self.url = url
        self.kind = kind
        self.appID = appID
        self.source = source
        self.description = description
        self.version = version
        self.holdsInDraft = holdsInDraft
        self.holdsWhenPublished = holdsWhenPublished
        self.draftApp = draftApp
        self.publishedApp = publishedApp
        self.adminPinned = adminPinned
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }
}

/// What one evaluation of an expectation found, to be stored (`updateOutcomes`).
public struct ExpectationOutcome: Sendable, Equatable {
    public var id: UUID
    public var holds: Bool
    public var app: String?

    public init(id: UUID, holds: Bool, app: String?) {
        self.id = id
        self.holds = holds
        self.app = app
    }
}

/// The admin-owned guardrails of the organisation (`domainID` nil) or of one domain.
public struct GuardrailRecord: Sendable, Equatable {
    public var domainID: Int64?
    public var protectedPaths: [String]
    public var maxRulesPerTeam: Int?
    public var maxBytesPerTeam: Int?
    /// 0 when none were ever set.
    public var version: Int64

    public init(
        domainID: Int64?, protectedPaths: [String] = [], maxRulesPerTeam: Int? = nil, maxBytesPerTeam: Int? = nil,
        version: Int64 = 0
    ) {
        self.domainID = domainID
        self.protectedPaths = protectedPaths
        self.maxRulesPerTeam = maxRulesPerTeam
        self.maxBytesPerTeam = maxBytesPerTeam
        self.version = version
    }
}

/// One team taken out of one domain's file (`host` nil: of every domain's).
public struct SuspensionRecord: Sendable, Equatable {
    public var teamID: Int64
    public var teamName: String
    public var domainID: Int64?
    public var host: String?
    public var reason: String
    public var createdBy: String
    public var createdAt: Date
}
