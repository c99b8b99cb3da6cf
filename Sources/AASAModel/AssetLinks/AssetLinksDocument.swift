/// A Digital Asset Links statement list (`/.well-known/assetlinks.json`), read losslessly: the JSON
/// as given is kept (`root`), and the statements are read out of it for validation, matching and
/// rendering. See docs/assetlinks-spec.md for every rule and every reading this model makes.
public struct AssetLinksDocument: Sendable, Equatable {
    /// `namespace: android_app` or `namespace: web`.
    public enum Target: Sendable, Equatable {
        case androidApp(packageName: String, fingerprints: [String])
        case web(site: String)
    }

    public struct Statement: Sendable, Equatable {
        public var relations: [String]
        public var target: Target
        /// `relation_extensions` → `delegate_permission/common.handle_all_urls` →
        /// `dynamic_app_link_components`, as written (nil when absent).
        public var dynamicComponents: [JSONValue]?

        public init(relations: [String], target: Target, dynamicComponents: [JSONValue]? = nil) {
            self.relations = relations
            self.target = target
            self.dynamicComponents = dynamicComponents
        }
    }

    public static let handleAllURLs = "delegate_permission/common.handle_all_urls"
    public static let getLoginCreds = "delegate_permission/common.get_login_creds"
    /// Relations Google defines (the first two are the ones this service writes).
    public static let knownRelations: Set<String> = [
        handleAllURLs, getLoginCreds, "delegate_permission/common.use_as_origin",
    ]

    /// The JSON as read.
    public var root: JSONValue
    /// The statements that could be read (in file order), each with its index in `root`.
    public var statements: [(index: Int, statement: Statement)]

    public static func == (a: AssetLinksDocument, b: AssetLinksDocument) -> Bool {
        a.root == b.root
    }

    public init(statements: [Statement]) {
        self.statements = statements.enumerated().map { ($0.offset, $0.element) }
        root = .array(statements.map(AssetLinksDocument.json))
    }

    /// Reads a statement list; the diagnostics say what could not be read (and the validator more).
    public static func parse(_ bytes: [UInt8]) -> (document: AssetLinksDocument?, diagnostics: [AssetLinksDiagnostic]) {
        let value: JSONValue
        do { value = try JSONParser.parse(bytes).value } catch {
            return (nil, [.error(.invalidJSON, at: .root, "not JSON: \(error)")])
        }
        return read(value)
    }

    public static func read(_ value: JSONValue) -> (document: AssetLinksDocument?, diagnostics: [AssetLinksDiagnostic])
    {
        guard let items = value.arrayValue else {
            return (nil, [.error(.notAnArray, at: .root, "a statement list is a JSON array of statements")])
        }
        var statements: [(Int, Statement)] = []
        for (i, item) in items.enumerated() {
            guard let o = item.objectValue else { continue }
            let relations = o["relation"]?.arrayValue?.compactMap(\.stringValue) ?? []
            guard let target = o["target"]?.objectValue else { continue }
            let parsed: Target
            switch target["namespace"]?.stringValue {
            case "android_app"?:
                parsed = .androidApp(
                    packageName: target["package_name"]?.stringValue ?? "",
                    fingerprints: target["sha256_cert_fingerprints"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            case "web"?:
                parsed = .web(site: target["site"]?.stringValue ?? "")
            default:
                continue
            }
            let dynamic = o["relation_extensions"]?.objectValue?[handleAllURLs]?.objectValue?[
                "dynamic_app_link_components"]?.arrayValue
            statements.append((i, Statement(relations: relations, target: parsed, dynamicComponents: dynamic)))
        }
        return (AssetLinksDocument(root: value, statements: statements), [])
    }

    private init(root: JSONValue, statements: [(Int, Statement)]) {
        self.root = root
        self.statements = statements.map { (index: $0.0, statement: $0.1) }
    }

    /// One statement in the canonical key order this service writes.
    static func json(_ s: Statement) -> JSONValue {
        var target = JSONObject()
        switch s.target {
        case .androidApp(let packageName, let fingerprints):
            target.append("namespace", .string("android_app"))
            target.append("package_name", .string(packageName))
            target.append("sha256_cert_fingerprints", .array(fingerprints.map(JSONValue.string)))
        case .web(let site):
            target.append("namespace", .string("web"))
            target.append("site", .string(site))
        }
        var o: JSONObject = ["relation": .array(s.relations.map(JSONValue.string)), "target": .object(target)]
        if let dynamic = s.dynamicComponents {
            o.append(
                "relation_extensions",
                .object([handleAllURLs: .object(["dynamic_app_link_components": .array(dynamic)])]))
        }
        return .object(o)
    }

    /// The canonical rendering: the statements as read, in file order, in the canonical key order,
    /// pretty-printed. Deterministic: equal documents render to equal bytes.
    public func rendered() -> [UInt8] {
        JSONWriter(style: .pretty).bytes(.array(statements.map { Self.json($0.statement) }))
    }
}
