/// A whole `apple-app-site-association` file.
///
/// Lossless: every key the model does not interpret (unknown keys, and known keys whose value had
/// the wrong type) is kept in `extra`, in document order, and written back by `jsonValue`.
public struct AASADocument: Sendable, Hashable {
    public var applinks: AppLinks?
    public var webcredentials: AppListService?
    public var appclips: AppListService?
    public var activitycontinuation: AppListService?
    public var extra: JSONObject

    public init(
        applinks: AppLinks? = nil,
        webcredentials: AppListService? = nil,
        appclips: AppListService? = nil,
        activitycontinuation: AppListService? = nil,
        extra: JSONObject = [:]
    ) {
        self.applinks = applinks
        self.webcredentials = webcredentials
        self.appclips = appclips
        self.activitycontinuation = activitycontinuation
        self.extra = extra
    }
}

/// The `applinks` service: Universal Links.
public struct AppLinks: Sendable, Hashable {
    /// How `details` was written. The dictionary form (keyed by app ID) is obsolete: JSON objects
    /// have no order, so the priority between its apps is undefined. Renderers write the array form.
    public enum DetailsForm: String, Sendable, Hashable { case array, dictionary }

    /// `apps`: required and empty only by iOS 12 and older; ignored by newer systems.
    public var apps: [String]?
    public var defaults: ComponentRule?
    public var substitutionVariables: [SubstitutionVariable]?
    /// `nil` when the key is absent.
    public var details: [DetailsEntry]?
    public var detailsForm: DetailsForm
    public var extra: JSONObject

    public init(
        apps: [String]? = nil,
        defaults: ComponentRule? = nil,
        substitutionVariables: [SubstitutionVariable]? = nil,
        details: [DetailsEntry]? = [],
        detailsForm: DetailsForm = .array,
        extra: JSONObject = [:]
    ) {
        self.apps = apps
        self.defaults = defaults
        self.substitutionVariables = substitutionVariables
        self.details = details
        self.detailsForm = detailsForm
        self.extra = extra
    }

    /// The values of a custom substitution variable (the last definition, as JSON's last key counts).
    public func variable(named name: String) -> SubstitutionVariable? {
        substitutionVariables?.last(where: { $0.name == name })
    }
}

/// A custom `$(name)` variable: the pattern fragment matches any one of `values`.
public struct SubstitutionVariable: Sendable, Hashable {
    public var name: String
    public var values: [String]

    public init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }
}

/// One element of `applinks.details`: a set of apps and their ordered rules.
public struct DetailsEntry: Sendable, Hashable {
    /// `appIDs` (iOS 13+).
    public var appIDs: [String]?
    /// `appID` (every version; the only form iOS 12 and older read).
    public var appID: String?
    /// `components` (iOS 13+); when present, newer systems ignore `paths`.
    public var components: [ComponentRule]?
    /// Legacy `paths` strings, `NOT ` marking an exclusion.
    public var paths: [String]?
    public var defaults: ComponentRule?
    public var extra: JSONObject
    /// Set when the element was not an object: kept as written, it speaks for no app.
    public var malformed: JSONValue?

    public init(
        appIDs: [String]? = nil,
        appID: String? = nil,
        components: [ComponentRule]? = nil,
        paths: [String]? = nil,
        defaults: ComponentRule? = nil,
        extra: JSONObject = [:],
        malformed: JSONValue? = nil
    ) {
        self.appIDs = appIDs
        self.appID = appID
        self.components = components
        self.paths = paths
        self.defaults = defaults
        self.extra = extra
        self.malformed = malformed
    }

    /// The apps this entry speaks for on iOS 13 and later: `appIDs` when present, even when empty
    /// (a reading: see `Readings.appIDsWinOverAppID`), otherwise `appID`.
    public var effectiveAppIDs: [String] {
        if malformed != nil { return [] }
        if let appIDs { return Readings.appIDsWinOverAppID ? appIDs : (appIDs + (appID.map { [$0] } ?? [])) }
        if let appID { return [appID] }
        return []
    }
}

/// One `components` dictionary (also the shape of `defaults`). A key that is `nil` was not written.
public struct ComponentRule: Sendable, Hashable {
    /// `"/"`: the path pattern.
    public var path: String?
    /// `"?"`: the query, as one pattern or a dictionary of item patterns.
    public var query: QueryPattern?
    /// `"#"`: the fragment pattern.
    public var fragment: String?
    public var exclude: Bool?
    public var caseSensitive: Bool?
    public var percentEncoded: Bool?
    public var comment: String?
    public var extra: JSONObject
    /// Set when the element was not an object: kept as written, it matches nothing.
    public var malformed: JSONValue?

    public init(
        path: String? = nil,
        query: QueryPattern? = nil,
        fragment: String? = nil,
        exclude: Bool? = nil,
        caseSensitive: Bool? = nil,
        percentEncoded: Bool? = nil,
        comment: String? = nil,
        extra: JSONObject = [:],
        malformed: JSONValue? = nil
    ) {
        self.path = path
        self.query = query
        self.fragment = fragment
        self.exclude = exclude
        self.caseSensitive = caseSensitive
        self.percentEncoded = percentEncoded
        self.comment = comment
        self.extra = extra
        self.malformed = malformed
    }

    /// This rule with every key it does not set taken from `defaults` (a key is replaced whole).
    public func filled(from defaults: ComponentRule?) -> ComponentRule {
        guard let defaults else { return self }
        var r = self
        if r.path == nil { r.path = defaults.path }
        if r.query == nil { r.query = defaults.query }
        if r.fragment == nil { r.fragment = defaults.fragment }
        if r.exclude == nil { r.exclude = defaults.exclude }
        if r.caseSensitive == nil { r.caseSensitive = defaults.caseSensitive }
        if r.percentEncoded == nil { r.percentEncoded = defaults.percentEncoded }
        return r
    }
}

/// The `"?"` key of a component.
public enum QueryPattern: Sendable, Hashable {
    /// A string: must cover the whole query string.
    case whole(String)
    /// A dictionary: each named item must match its pattern (every occurrence; absent = empty).
    case items([QueryItemPattern])
}

/// One `"name": pattern` of a `"?"` dictionary. A value that is not a string is kept as written:
/// Apple then disregards the whole dictionary, which the validator refuses.
public struct QueryItemPattern: Sendable, Hashable {
    public var name: String
    public var value: JSONValue

    public init(name: String, value: JSONValue) {
        self.name = name
        self.value = value
    }

    public init(name: String, pattern: String) {
        self.init(name: name, value: .string(pattern))
    }

    public var pattern: String? { value.stringValue }
}

/// A service that is only a list of app IDs: `webcredentials`, `appclips`, `activitycontinuation`.
public struct AppListService: Sendable, Hashable {
    public var apps: [String]?
    public var extra: JSONObject

    public init(apps: [String]? = [], extra: JSONObject = [:]) {
        self.apps = apps
        self.extra = extra
    }
}
