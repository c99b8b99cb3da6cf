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

/// The revision of a source environment's domain that a promotion took its rules from.
public struct PromotionSource: Sendable, Equatable {
    public var host: String
    public var revision: Int

    public init(host: String, revision: Int) {
        self.host = host
        self.revision = revision
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
