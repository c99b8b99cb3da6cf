/// The words of the registry the service keeps (teams, tokens, apps, domains), shared by the
/// server, the store and the CLI. The store keeps rows in these terms; it does not define them.

/// What a token may do.
public enum TokenScope: String, Sendable, CaseIterable, Comparable, Codable {
    case admin, write, read
    public static func < (a: TokenScope, b: TokenScope) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// The services of an apple-app-site-association an app can be listed for.
public enum AppService: String, Sendable, CaseIterable {
    case applinks, webcredentials, appclips, activitycontinuation
}

/// Which file an app is listed in: the apple-app-site-association (an app ID) or assetlinks.json
/// (a package name with its signing certificates' fingerprints).
public enum AppPlatform: String, Sendable, CaseIterable {
    case ios, android

    /// The services an app of this platform can have: Android has App Links (`applinks`, as
    /// `handle_all_urls`) and credential sharing (`webcredentials`, as `get_login_creds`).
    public var services: [AppService] {
        switch self {
        case .ios: AppService.allCases
        case .android: [.applinks, .webcredentials]
        }
    }

    /// Why `id` cannot name an app of this platform, nil when it can.
    public func identifierProblem(_ id: String) -> String? {
        switch self {
        case .ios: AppID.problem(id)
        case .android: AssetLinksValidator.packageNameProblem(id)
        }
    }
}

/// `applinks.defaults` as a domain sets them.
public struct DomainDefaults: Sendable, Equatable {
    public var caseSensitive: Bool?
    public var percentEncoded: Bool?

    public init(caseSensitive: Bool? = nil, percentEncoded: Bool? = nil) {
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
    }

    public var isEmpty: Bool { caseSensitive == nil && percentEncoded == nil }
}
