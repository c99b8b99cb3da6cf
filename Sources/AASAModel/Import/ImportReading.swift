/// An AASA file read into what the registry stores: apps in the file's order with their services,
/// each app's rules as stored components, and the domain's defaults and substitution variables.
/// What the registry has no place for is written into the rules where that is exact:
///
/// - a details entry's `defaults`, and the file's `defaults` other than `caseSensitive` and
///   `percentEncoded` (the domain keeps those two), go into each component that does not set the key;
/// - legacy `paths` (an entry without `components`) become components: `NOT /x` an exclusion, each
///   matching the path only and case-sensitively, as legacy paths do whatever the defaults say;
/// - an app in several entries gets their rules in file order; `appID`/`appIDs` and the dictionary
///   form of `details` need nothing.
///
/// Whether the result means the same is not assumed: `ImportProof` checks it on the rendered file.
public struct ImportReading: Sendable {
    public struct App: Sendable, Equatable {
        public var appID: String
        public var services: [AppService]
        /// The stored components, in order (none for an app listed only by other services).
        public var rules: [JSONValue]
    }

    /// In order of first appearance in `details` (the order Apple tries them in), then the apps
    /// that only other services list.
    public var apps: [App] = []
    public var caseSensitive: Bool?
    public var percentEncoded: Bool?
    public var substitutionVariables: [SubstitutionVariable] = []
    /// What the reading changed in form, for the plan (one sentence each).
    public var notes: [String] = []

    public init(_ document: AASADocument) {
        var order: [String] = []
        var rules: [String: [JSONValue]] = [:]
        var services: [String: Set<AppService>] = [:]
        func note(_ text: String) { if !notes.contains(text) { notes.append(text) } }
        let fileDefaults = document.applinks?.defaults
        caseSensitive = fileDefaults?.caseSensitive
        percentEncoded = fileDefaults?.percentEncoded
        substitutionVariables = document.applinks?.substitutionVariables ?? []
        if document.applinks?.detailsForm == .dictionary {
            note("details is a dictionary (obsolete): rendered as an array, in the order read")
        }
        for entry in document.applinks?.details ?? [] {
            let ids = entry.effectiveAppIDs
            if entry.appIDs != nil && entry.appID != nil { note("an entry has both appID and appIDs: appIDs is read") }
            var converted: [JSONValue] = []
            if let components = entry.components {
                if entry.defaults != nil { note("an entry's defaults are written into each of its components") }
                converted = components.map { Self.component($0, entryDefaults: entry.defaults, file: fileDefaults) }
            } else if let paths = entry.paths {
                note("legacy paths become components (NOT /x an exclusion), matching the path only, case-sensitively")
                converted = paths.map { Self.legacyPath($0, file: fileDefaults) }
            }
            for id in ids {
                if rules[id] == nil {
                    order.append(id)
                    rules[id] = []
                } else {
                    note("an app listed in several entries gets their rules in file order")
                }
                rules[id]! += converted
                services[id, default: []].insert(.applinks)
            }
        }
        let lists: [(AppService, [String]?)] = [
            (.webcredentials, document.webcredentials?.apps), (.appclips, document.appclips?.apps),
            (.activitycontinuation, document.activitycontinuation?.apps),
        ]
        for (service, apps) in lists {
            for id in apps ?? [] {
                if services[id] == nil { order.append(id) }
                services[id, default: []].insert(service)
            }
        }
        apps = order.map { id in
            App(
                appID: id, services: AppService.allCases.filter { services[id]?.contains($0) == true },
                rules: rules[id] ?? [])
        }
    }

    /// A component with the keys its entry's defaults, then the file's (all but the two the domain
    /// keeps), give it.
    static func component(_ rule: ComponentRule, entryDefaults: ComponentRule?, file: ComponentRule?) -> JSONValue {
        guard rule.malformed == nil, case .object(var object) = rule.jsonValue else { return rule.jsonValue }
        func fill(_ key: String, _ value: JSONValue?) {
            guard let value, object[key] == nil else { return }
            object.append(key, value)
        }
        for defaults in [entryDefaults, file].compactMap({ $0 }) {
            guard case .object(let given) = defaults.jsonValue else { continue }
            for member in given.members where member.key != "comment" {
                // The domain keeps the file's caseSensitive and percentEncoded itself.
                if defaults == file && (member.key == "caseSensitive" || member.key == "percentEncoded") { continue }
                fill(member.key, member.value)
            }
        }
        return .object(object)
    }

    /// A legacy path as a component: the path only, case-sensitive and percent-decoded whatever the
    /// file's defaults say (they do not reach legacy paths).
    static func legacyPath(_ path: String, file: ComponentRule?) -> JSONValue {
        var object = JSONObject()
        if path.hasPrefix("NOT ") {
            object.append("/", .string(String(path.dropFirst(4))))
            object.append("exclude", .bool(true))
        } else {
            object.append("/", .string(path))
        }
        if file?.caseSensitive == false { object.append("caseSensitive", .bool(true)) }
        if file?.percentEncoded == false { object.append("percentEncoded", .bool(true)) }
        return .object(object)
    }
}
