/// Which team an imported app belongs to: keys are Apple Team ID prefixes (`ABCDE12345`), app IDs
/// (`ABCDE12345.com.example.app`) or Android package names (`com.example.android`), each naming a
/// team. The most specific key wins: an app ID or package named whole beats its Team ID prefix.
public struct ImportTeamMap: Sendable, Equatable {
    public var entries: [String: String]

    public init(_ entries: [String: String]) { self.entries = entries }

    /// The team of an app ID or package name, or nil when no key claims it.
    public func team(for appID: String) -> String? {
        if let team = entries[appID] { return team }
        guard let dot = appID.firstIndex(of: ".") else { return nil }
        return entries[String(appID[..<dot])]
    }

    /// The team of an Android package: the package named whole, or the longest key that is a
    /// dotted prefix of it (`com.example` claims `com.example.shop`).
    public func team(forPackage package: String) -> String? {
        if let team = entries[package] { return team }
        let prefixes = entries.keys.filter { package.hasPrefix($0 + ".") }
        return prefixes.max { $0.count < $1.count }.flatMap { entries[$0] }
    }
}
