/// WebAuthn's Related Origin Requests (W3C WebAuthn Level 3, "Related Origins Validation"): the
/// file `https://<RP ID>/.well-known/webauthn`, `{"origins": [...]}`, lists the other web origins
/// that may use the RP ID. A browser reads at most five distinct labels (the label just left of
/// each origin's public suffix: `example` for `https://shop.example.co.uk` and `https://example.de`)
/// and ignores the rest, so a sixth label is refused here rather than silently lost there.
public enum RelatedOrigins {
    /// The most origins one owner (a team, or the admins) lists on a domain: the manifest's cap.
    public static let maxPerTeam = 50
    /// The most origins a domain lists in all, whoever listed them.
    public static let maxPerDomain = 200

    public static let maxLabels = 5

    /// What is wrong with one entry, or with the set it joins.
    public struct Problem: Error, Sendable, Equatable {
        /// The index of the entry in the list checked.
        public var index: Int
        /// A stable rule name: `https-origin`, `unique`, `max-labels`.
        public var rule: String
        public var message: String
    }

    /// The origin as a browser serializes it (lower-case scheme and host, no default port, no
    /// trailing slash), or why it cannot be one.
    public static func canonical(_ text: String) -> Result<String, Problem> {
        func refuse(_ message: String) -> Result<String, Problem> {
            .failure(Problem(index: 0, rule: "https-origin", message: message))
        }
        guard text.utf8.count <= 300 else { return refuse("an origin is at most 300 characters") }
        let lower = String(text.lowercased())
        guard lower.hasPrefix("https://") else {
            return refuse("\(text) is not an https origin: related origins are https://host[:port] only")
        }
        let rest = lower.dropFirst("https://".count)
        if let cut = rest.firstIndex(where: { "/?#".contains($0) }) {
            let what = rest[cut] == "/" ? "a path" : rest[cut] == "?" ? "a query" : "a fragment"
            return refuse("\(text) has \(what): an origin is https://host[:port], with nothing after it")
        }
        if rest.contains("@") { return refuse("\(text) has user information: an origin is https://host[:port]") }
        var hostPart = Substring(rest)
        var port: Int?
        if let colon = rest.lastIndex(of: ":") {
            hostPart = rest[..<colon]
            let digits = rest[rest.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), let value = Int(digits),
                (1...65535).contains(value)
            else { return refuse("\(text) has no valid port (1-65535) after its colon") }
            port = value == 443 ? nil : value
        }
        let host: String
        do { host = try HostName.associatedDomain(String(hostPart)) } catch {
            return refuse("\(text): \(error)")
        }
        guard PublicSuffixList.shared.registrable(host) != nil else {
            return refuse("\(host) is a public suffix, which no one site owns: name a host under it")
        }
        return .success("https://" + host + (port.map { ":\($0)" } ?? ""))
    }

    /// The label a browser counts for a canonical origin.
    public static func label(of origin: String) -> String? {
        var host = Substring(origin.dropFirst("https://".count))
        if let colon = host.lastIndex(of: ":") { host = host[..<colon] }
        return PublicSuffixList.shared.registrable(String(host))?.label
    }

    /// Each entry canonical, none twice, at most five labels: the problems, each naming its entry
    /// (the sixth label's first entry and every later entry of a new label); the origins taken, with
    /// the entry each came from (`indices[k]` for `origins[k]`).
    public static func check(_ entries: [String]) -> (origins: [String], indices: [Int], problems: [Problem]) {
        var origins: [String] = []
        var indices: [Int] = []
        var problems: [Problem] = []
        var seen: [String: Int] = [:]
        var labels: [String] = []
        for (i, entry) in entries.enumerated() {
            switch canonical(entry) {
            case .failure(var problem):
                problem.index = i
                problems.append(problem)
            case .success(let origin):
                if let first = seen[origin] {
                    problems.append(
                        Problem(
                            index: i, rule: "unique",
                            message: "\(origin) is listed already (entry \(first)); list each origin once"))
                    continue
                }
                seen[origin] = i
                let label = label(of: origin) ?? origin
                if !labels.contains(label) {
                    guard labels.count < maxLabels else {
                        problems.append(
                            Problem(
                                index: i, rule: "max-labels",
                                message:
                                    "\(origin) adds a sixth label (\(label)) beside \(labels.joined(separator: ", ")): "
                                    + "browsers honour at most \(maxLabels) and ignore the rest"))
                        continue
                    }
                    labels.append(label)
                }
                origins.append(origin)
                indices.append(i)
            }
        }
        return (origins, indices, problems)
    }

    /// The file, deterministic: the origins sorted, pretty-printed (with a final newline).
    public static func render(_ origins: [String]) -> [UInt8] {
        let value = JSONValue.object(["origins": .array(origins.sorted().map { .string($0) })])
        return JSONWriter(style: .pretty).bytes(value)
    }

    /// The origins a served or stored file lists, nil when it is not such a file.
    public static func parse(_ bytes: [UInt8]) -> [String]? {
        guard let root = try? JSONParser.parse(bytes).value, case .object(let object) = root,
            case .array(let items)? = object["origins"]
        else { return nil }
        var origins: [String] = []
        for item in items {
            guard case .string(let origin) = item else { return nil }
            origins.append(origin)
        }
        return origins
    }
}
