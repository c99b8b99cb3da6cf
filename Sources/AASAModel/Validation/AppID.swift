/// App identifiers: a 10-character alphanumeric prefix (Team ID or App ID prefix), a period, and a
/// bundle identifier (letters, digits, hyphens and periods).
public enum AppID {
    /// Why `id` is not an app ID, or nil when it is one.
    public static func problem(_ id: String) -> String? {
        if id.isEmpty { return "the app ID is empty: write TEAMID.bundle.identifier, e.g. ABCDE12345.com.example.app" }
        guard let dot = id.firstIndex(of: ".") else {
            if isTeamID(id) {
                return
                    "\(JSONWriter.quoted(id)) is a bare Team ID: add a period and the bundle ID (\(id).com.example.app)"
            }
            return "\(JSONWriter.quoted(id)) has no Team ID prefix: an app ID is TEAMID.bundle.identifier"
        }
        let prefix = id[..<dot]
        let bundle = id[id.index(after: dot)...]
        guard isTeamID(prefix) else {
            let found = prefix.isEmpty ? "nothing" : JSONWriter.quoted(String(prefix))
            if bundle.contains(".") && !prefix.contains(where: \.isNumber) && prefix.count < 10 {
                return
                    """
                    \(JSONWriter.quoted(id)) has no Team ID prefix (it starts with \(found), which looks like \
                    part of a bundle ID): write TEAMID.\(id)
                    """
            }
            return "\(JSONWriter.quoted(id)) does not start with a 10-character alphanumeric Team ID (found \(found))"
        }
        if bundle.isEmpty { return "\(JSONWriter.quoted(id)) has no bundle ID after the Team ID" }
        if let bad = bundle.first(where: { !($0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".")) }) {
            return
                """
                the bundle ID in \(JSONWriter.quoted(id)) contains \(JSONWriter.quoted(String(bad))): bundle IDs \
                allow only letters, digits, hyphens and periods
                """
        }
        if bundle.hasPrefix(".") || bundle.hasSuffix(".") || bundle.contains("..") {
            return "the bundle ID in \(JSONWriter.quoted(id)) has an empty part (a leading, trailing or doubled period)"
        }
        return nil
    }

    public static func isValid(_ id: String) -> Bool { problem(id) == nil }

    /// Team IDs are issued in upper case; a lower-case one is valid syntax but almost surely a typo.
    public static func hasLowercaseTeamID(_ id: String) -> Bool {
        guard let dot = id.firstIndex(of: ".") else { return false }
        return id[..<dot].contains { $0.isLowercase }
    }

    static func isTeamID<S: StringProtocol>(_ s: S) -> Bool {
        s.utf8.count == 10 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
    }
}
