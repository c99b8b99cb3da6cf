/// What changes between two assetlinks.json files, per app (package name): statements added or
/// removed, relations and fingerprints gained or lost, dynamic rules added or removed (compared as
/// written), and a reordering of an app's rules (order decides on Android too). `web` targets are
/// compared by site.
public struct AssetLinksDiff: Sendable, Equatable {
    public struct Change: Sendable, Equatable {
        public enum Kind: String, Sendable { case added, removed, changed }
        public var target: String
        public var kind: Kind
        public var relationsAdded: [String] = []
        public var relationsRemoved: [String] = []
        public var fingerprintsAdded: [String] = []
        public var fingerprintsRemoved: [String] = []
        public var rulesAdded: [JSONValue] = []
        public var rulesRemoved: [JSONValue] = []
        /// The same rules in another order.
        public var rulesReordered = false
    }

    public var changes: [Change]
    public var isEmpty: Bool { changes.isEmpty }

    /// One merged view per target: relations, fingerprints and rules of all its statements.
    private struct Side: Equatable {
        var relations: [String] = []
        var fingerprints: [String] = []
        var rules: [JSONValue] = []
    }

    private static func sides(_ document: AssetLinksDocument) -> [(String, Side)] {
        var order: [String] = []
        var sides: [String: Side] = [:]
        for (_, statement) in document.statements {
            let key: String
            var side = Side()
            switch statement.target {
            case .androidApp(let package, let fingerprints):
                key = package
                side.fingerprints = fingerprints
            case .web(let site):
                key = "web " + site
            }
            side.relations = statement.relations
            // A rule's keys have no order (and jsonb does not keep it): compared in key order.
            side.rules = (statement.dynamicComponents ?? []).map(\.keyOrdered)
            if sides[key] == nil { order.append(key) }
            var merged = sides[key] ?? Side()
            merged.relations += side.relations.filter { !merged.relations.contains($0) }
            merged.fingerprints += side.fingerprints.filter { !merged.fingerprints.contains($0) }
            merged.rules += side.rules
            sides[key] = merged
        }
        return order.map { ($0, sides[$0]!) }
    }

    public init(from old: AssetLinksDocument, to new: AssetLinksDocument) {
        let before = Self.sides(old)
        let after = Self.sides(new)
        let beforeByKey = Dictionary(before, uniquingKeysWith: { a, _ in a })
        let afterByKey = Dictionary(after, uniquingKeysWith: { a, _ in a })
        var changes: [Change] = []
        for (key, side) in after {
            guard let was = beforeByKey[key] else {
                changes.append(
                    Change(
                        target: key, kind: .added, relationsAdded: side.relations, fingerprintsAdded: side.fingerprints,
                        rulesAdded: side.rules))
                continue
            }
            // Relations and fingerprints are sets to a device: only the rules' order means anything.
            guard
                Set(was.relations) != Set(side.relations) || Set(was.fingerprints) != Set(side.fingerprints)
                    || was.rules != side.rules
            else { continue }
            var change = Change(target: key, kind: .changed)
            change.relationsAdded = side.relations.filter { !was.relations.contains($0) }
            change.relationsRemoved = was.relations.filter { !side.relations.contains($0) }
            change.fingerprintsAdded = side.fingerprints.filter { !was.fingerprints.contains($0) }
            change.fingerprintsRemoved = was.fingerprints.filter { !side.fingerprints.contains($0) }
            change.rulesAdded = Self.subtract(side.rules, was.rules)
            change.rulesRemoved = Self.subtract(was.rules, side.rules)
            change.rulesReordered = change.rulesAdded.isEmpty && change.rulesRemoved.isEmpty && was.rules != side.rules
            changes.append(change)
        }
        for (key, side) in before where afterByKey[key] == nil {
            changes.append(
                Change(
                    target: key, kind: .removed, relationsRemoved: side.relations,
                    fingerprintsRemoved: side.fingerprints,
                    rulesRemoved: side.rules))
        }
        self.changes = changes
    }

    /// `a` without one occurrence of each element of `b` (a multiset difference, order kept).
    private static func subtract(_ a: [JSONValue], _ b: [JSONValue]) -> [JSONValue] {
        var rest = b
        return a.filter { item in
            guard let i = rest.firstIndex(of: item) else { return true }
            rest.remove(at: i)
            return false
        }
    }

    public var jsonValue: JSONValue {
        .array(
            changes.map { c in
                var o: JSONObject = ["target": .string(c.target), "change": .string(c.kind.rawValue)]
                func list(_ key: String, _ items: [String]) {
                    if !items.isEmpty { o.append(key, .array(items.map(JSONValue.string))) }
                }
                list("relationsAdded", c.relationsAdded)
                list("relationsRemoved", c.relationsRemoved)
                list("fingerprintsAdded", c.fingerprintsAdded)
                list("fingerprintsRemoved", c.fingerprintsRemoved)
                if !c.rulesAdded.isEmpty { o.append("rulesAdded", .array(c.rulesAdded)) }
                if !c.rulesRemoved.isEmpty { o.append("rulesRemoved", .array(c.rulesRemoved)) }
                if c.rulesReordered { o.append("rulesReordered", .bool(true)) }
                return .object(o)
            })
    }

    /// Lines for a person, from `jsonValue` (so the CLI prints a server's answer the same way).
    public static func textLines(json: JSONValue) -> [String] {
        let changes = json.arrayValue ?? []
        guard !changes.isEmpty else { return ["No change."] }
        var lines: [String] = []
        for c in changes {
            guard let o = c.objectValue else { continue }
            lines.append("\(o["change"]?.stringValue ?? "?") \(o["target"]?.stringValue ?? "?")")
            for (key, label) in [
                ("relationsAdded", "+ relation"), ("relationsRemoved", "- relation"),
                ("fingerprintsAdded", "+ fingerprint"), ("fingerprintsRemoved", "- fingerprint"),
            ] {
                for item in o[key]?.arrayValue ?? [] { lines.append("  \(label) \(item.stringValue ?? "")") }
            }
            for rule in o["rulesAdded"]?.arrayValue ?? [] {
                lines.append("  + rule \(JSONWriter(style: .compact).string(rule))")
            }
            for rule in o["rulesRemoved"]?.arrayValue ?? [] {
                lines.append("  - rule \(JSONWriter(style: .compact).string(rule))")
            }
            if o["rulesReordered"]?.boolValue == true { lines.append("  rules reordered (the first match decides)") }
        }
        return lines
    }
}
