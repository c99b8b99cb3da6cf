/// The document as JSON. Known keys come in a fixed order (the order of Apple's examples), then
/// everything in `extra` in the order it was read, so the same document always gives the same bytes.
extension AASADocument {
    /// The document as JSON, keeping the obsolete dictionary form of `details` if it was read that way.
    public var jsonValue: JSONValue { encode(canonical: false) }

    /// The canonical form: `details` always as an array.
    public var canonicalJSONValue: JSONValue { encode(canonical: true) }

    func encode(canonical: Bool) -> JSONValue {
        var object = JSONObject()
        if let applinks { object.append("applinks", applinks.encode(canonical: canonical)) }
        if let webcredentials { object.append("webcredentials", webcredentials.jsonValue) }
        if let appclips { object.append("appclips", appclips.jsonValue) }
        if let activitycontinuation { object.append("activitycontinuation", activitycontinuation.jsonValue) }
        object.members += extra.members
        return .object(object)
    }
}

extension AppLinks {
    func encode(canonical: Bool) -> JSONValue {
        var object = JSONObject()
        if let apps { object.append("apps", .array(apps.map(JSONValue.string))) }
        if let defaults { object.append("defaults", defaults.jsonValue) }
        if let substitutionVariables {
            object.append(
                "substitutionVariables",
                .object(
                    JSONObject(
                        substitutionVariables.map {
                            JSONMember($0.name, .array($0.values.map(JSONValue.string)))
                        })))
        }
        if let details {
            if detailsForm == .dictionary && !canonical {
                object.append(
                    "details",
                    .object(
                        JSONObject(
                            details.map { entry in
                                var value = entry.jsonValue
                                if case .object(var o) = value {
                                    o["appID"] = nil
                                    value = .object(o)
                                }
                                return JSONMember(entry.appID ?? "", value)
                            })))
            } else {
                object.append("details", .array(details.map(\.jsonValue)))
            }
        }
        object.members += extra.members
        return .object(object)
    }
}

extension DetailsEntry {
    public var jsonValue: JSONValue {
        if let malformed { return malformed }
        var object = JSONObject()
        if let appID { object.append("appID", .string(appID)) }
        if let appIDs { object.append("appIDs", .array(appIDs.map(JSONValue.string))) }
        if let defaults { object.append("defaults", defaults.jsonValue) }
        if let components { object.append("components", .array(components.map(\.jsonValue))) }
        if let paths { object.append("paths", .array(paths.map(JSONValue.string))) }
        object.members += extra.members
        return .object(object)
    }
}

extension ComponentRule {
    public var jsonValue: JSONValue {
        if let malformed { return malformed }
        var object = JSONObject()
        if let path { object.append("/", .string(path)) }
        switch query {
        case .whole(let s)?: object.append("?", .string(s))
        case .items(let items)?: object.append("?", .object(JSONObject(items.map { JSONMember($0.name, $0.value) })))
        case nil: break
        }
        if let fragment { object.append("#", .string(fragment)) }
        if let exclude { object.append("exclude", .bool(exclude)) }
        if let caseSensitive { object.append("caseSensitive", .bool(caseSensitive)) }
        if let percentEncoded { object.append("percentEncoded", .bool(percentEncoded)) }
        if let comment { object.append("comment", .string(comment)) }
        object.members += extra.members
        return .object(object)
    }
}

extension AppListService {
    public var jsonValue: JSONValue {
        var object = JSONObject()
        if let apps { object.append("apps", .array(apps.map(JSONValue.string))) }
        object.members += extra.members
        return .object(object)
    }
}
