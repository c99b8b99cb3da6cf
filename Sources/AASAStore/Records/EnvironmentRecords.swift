import Foundation

/// One of the organisation's environments; `position` is its place in the promotion order.
public struct EnvironmentRecord: Sendable, Equatable {
    public var id: Int64
    public var name: String
    public var position: Int
    /// Domains that belong to it.
    public var domainCount: Int
}

/// A signing certificate's SHA-256 fingerprint and what the team calls it.
public struct LabelledFingerprint: Sendable, Equatable, Hashable {
    /// The labels the isolation policy knows; any other word is the team's own.
    public static let playSigning = "play-signing"
    public static let debug = "debug"
    public static let upload = "upload"

    public var sha256: String
    public var label: String

    public init(sha256: String, label: String) {
        self.sha256 = sha256
        self.label = label
    }
}

/// What an app is in one environment: the iOS app ID or Android package of that build, and an
/// Android build's labelled signing certificates.
public struct BuildRecord: Sendable, Equatable {
    public var appPK: Int64
    /// The app's own ID, which its rules and the API name it by.
    public var appID: String
    public var environment: String
    /// The app ID or package name the environment's files name.
    public var identity: String
    public var fingerprints: [LabelledFingerprint]
    /// An Android production build without a `play-signing` fingerprint, acknowledged by its team.
    public var playSigningAbsent: Bool

    public init(
        appPK: Int64, appID: String, environment: String, identity: String, fingerprints: [LabelledFingerprint],
        playSigningAbsent: Bool
    ) {
        self.appPK = appPK
        self.appID = appID
        self.environment = environment
        self.identity = identity
        self.fingerprints = fingerprints
        self.playSigningAbsent = playSigningAbsent
    }
}

/// Where a promotion took a new revision's content from: the source domain's revision, or its
/// draft (issue 41: a draft taken once recorded the source's current revision, as if the rules
/// came from it).
public struct PromotionSource: Sendable, Equatable {
    public var host: String
    /// The source's revision of the same file that was taken; nil when its draft was.
    public var revision: Int?
    /// A draft taken: the SHA-256 of the source's file rendered from it.
    public var draftSHA256: String?
    /// A draft taken: the source's revision it was edited from (nil: never published).
    public var draftBase: Int?

    public var fromDraft: Bool { revision == nil }

    /// A published revision taken.
    public init(host: String, revision: Int) {
        self.host = host
        self.revision = revision
    }

    /// A draft taken: the bytes it renders to and the revision it was edited from.
    public init(host: String, draftSHA256: String, draftBase: Int?) {
        self.host = host
        self.draftSHA256 = draftSHA256
        self.draftBase = draftBase
    }

    /// As stored: a host marks a promoted revision; the rest tells which of the two kinds.
    init?(host: String?, revision: Int?, draftSHA256: String?, draftBase: Int?) {
        guard let host else { return nil }
        self.host = host
        self.revision = revision
        self.draftSHA256 = draftSHA256
        self.draftBase = draftBase
    }
}

extension DomainSnapshot {
    /// The domain's environment's build of each app that has one.
    public var environmentBuilds: [String: BuildRecord] {
        Dictionary(
            builds.filter { $0.environment == domain.environment }.map { ($0.appID, $0) },
            uniquingKeysWith: { a, _ in a })
    }

    /// Apps that declare builds (in any environment): they render only as a build.
    public var appsWithBuilds: Set<String> { Set(builds.map(\.appID)) }

    /// From a name in the files back to the app it is (the identity of no build is an app's own ID).
    public var appsByIdentity: [String: String] {
        Dictionary(
            builds.filter { $0.environment == domain.environment }.map { ($0.identity, $0.appID) },
            uniquingKeysWith: { a, _ in a })
    }
}
