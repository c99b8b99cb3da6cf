/// An assetlinks.json read into what the registry stores: Android apps in statement order, each
/// with its package, fingerprints and services (`handle_all_urls` is `applinks`,
/// `get_login_creds` is `webcredentials`), and either its `dynamic_app_link_components` as stored
/// rules (`comments` becomes the rule syntax's `comment`) or, for `handle_all_urls` without dynamic
/// rules, `manifestDecides`.
///
/// What the registry cannot write is refused with the statement's pointer: a `web` target, a
/// relation other than those two, a statement that names no Android app, and a package with
/// `handle_all_urls` in two statements (the device reads the first, a diff merges both: no single
/// rendering says the same). Whether the rest means the same is not assumed: `ImportProof` checks
/// the rendering.
public struct AssetLinksReading: Sendable {
    public struct App: Sendable, Equatable {
        public var packageName: String
        public var fingerprints: [String]
        public var services: [AppService]
        /// Stored components in order; empty when the manifest decides or the app only shares
        /// credentials.
        public var rules: [JSONValue]
        public var manifestDecides: Bool
        /// The first statement that names the app (`/3`), for errors.
        public var pointer: String
    }

    public struct Refusal: Sendable, Equatable, Error {
        public var pointer: String
        public var rule: String
        public var message: String
    }

    public var apps: [App] = []
    public var refusals: [Refusal] = []
    public var notes: [String] = []

    public init(_ document: AssetLinksDocument) {
        let read = Dictionary(document.statements.map { ($0.index, $0.statement) }, uniquingKeysWith: { a, _ in a })
        var handled = Set<String>()
        var notes: [String] = []
        func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }
        for i in (document.root.arrayValue ?? []).indices {
            let pointer = "/\(i)"
            guard let statement = read[i] else {
                refusals.append(
                    Refusal(
                        pointer: pointer, rule: "statement",
                        message: "not a statement the registry can write: an object with relation and a target of "
                            + "namespace android_app"))
                continue
            }
            guard case .androidApp(let package, let fingerprints) = statement.target else {
                refusals.append(
                    Refusal(
                        pointer: pointer + "/target", rule: "web-target",
                        message: "a web target (another site sharing credentials) has no place in the registry, "
                            + "which writes statements for its Android apps only"))
                continue
            }
            var services: [AppService] = []
            for (j, relation) in statement.relations.enumerated() {
                switch relation {
                case AssetLinksDocument.handleAllURLs: services.append(.applinks)
                case AssetLinksDocument.getLoginCreds: services.append(.webcredentials)
                default:
                    refusals.append(
                        Refusal(
                            pointer: pointer + "/relation/\(j)", rule: "relation",
                            message: "the registry writes handle_all_urls and get_login_creds, not \(relation)"))
                }
            }
            var rules: [JSONValue] = []
            var manifestDecides = false
            if services.contains(.applinks) {
                guard handled.insert(package).inserted else {
                    refusals.append(
                        Refusal(
                            pointer: pointer, rule: "duplicate-statement",
                            message: "\(package) has handle_all_urls in an earlier statement too; a device reads "
                                + "the first only: keep one"))
                    continue
                }
                let dynamic = statement.dynamicComponents ?? []
                rules = dynamic.map(Self.storedRule)
                manifestDecides = dynamic.isEmpty
            }
            if let k = apps.firstIndex(where: { $0.packageName == package }) {
                note("a package in several statements gets one statement, with every relation and fingerprint")
                apps[k].fingerprints += fingerprints.filter { !apps[k].fingerprints.contains($0) }
                apps[k].services = AppService.allCases.filter { apps[k].services.contains($0) || services.contains($0) }
                apps[k].rules += rules
                apps[k].manifestDecides = apps[k].manifestDecides || manifestDecides
            } else {
                apps.append(
                    App(
                        packageName: package, fingerprints: fingerprints,
                        services: AppService.allCases.filter(services.contains), rules: rules,
                        manifestDecides: manifestDecides, pointer: pointer))
            }
            if manifestDecides {
                note("handle_all_urls without dynamic rules: the app's manifest decides, a claim on the whole domain")
            }
        }
        self.notes = notes
    }

    /// A dynamic component in the rule syntax the registry stores: Android's `comments` is the
    /// syntax's `comment` (the renderer writes it back as `comments`).
    static func storedRule(_ component: JSONValue) -> JSONValue {
        guard case .object(let object) = component else { return component }
        var out = JSONObject()
        for member in object {
            out.append(member.key == "comments" ? "comment" : member.key, member.value)
        }
        return .object(out)
    }
}
