import AASAModel
import Foundation

/// An assetlinks.json of `apps` apps with `rules` dynamic rules each (`/tN/sK/*`, a query rule,
/// and a final exclude-all), the Android counterpart of `makeDocument`.
func makeAssetLinks(apps: Int, rules: Int) -> [UInt8] {
    let fingerprint = (0..<32).map { String(format: "%02X", $0) }.joined(separator: ":")
    var statements: [String] = []
    for a in 0..<apps {
        var components = (0..<rules).map { k in
            k % 3 == 0 ? #"{"/":"/t\#(a)/s\#(k)/*","?":{"q":"?*"}}"# : #"{"/":"/t\#(a)/s\#(k)/*"}"#
        }
        components.append(#"{"/":"*","exclude":true}"#)
        statements.append(
            #"""
            {"relation":["delegate_permission/common.handle_all_urls"],"target":{"namespace":"android_app",\#
            "package_name":"com.bench.app\#(a)","sha256_cert_fingerprints":["\#(fingerprint)"]},\#
            "relation_extensions":{"delegate_permission/common.handle_all_urls":{"dynamic_app_link_components":\#
            [\#(components.joined(separator: ","))]}}}
            """#
        )
    }
    return Array(("[" + statements.joined(separator: ",") + "]").utf8)
}

/// The naive baseline: parse the file and build a regular expression per pattern on every call
/// (`*` before a literal c as `[^c]*`, Google's "up until the character after the wildcard").
func naiveAndroidOpeners(_ bytes: [UInt8], url: String) -> [String] {
    guard let statements = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]],
        let parts = URLComponents(string: url)
    else { return [] }
    func regex(_ pattern: String) -> NSRegularExpression? {
        var out = "^"
        let chars = Array(pattern)
        for (i, c) in chars.enumerated() {
            switch c {
            case "*":
                out +=
                    i + 1 < chars.count && chars[i + 1] != "?" && chars[i + 1] != "*"
                    ? "[^\(NSRegularExpression.escapedPattern(for: String(chars[i + 1])))]*" : ".*"
            case "?": out += "."
            default: out += NSRegularExpression.escapedPattern(for: String(c))
            }
        }
        return try? NSRegularExpression(pattern: out + "$")
    }
    func matches(_ pattern: String, _ s: String) -> Bool {
        regex(pattern)?.firstMatch(in: s, range: NSRange(s.startIndex..., in: s)) != nil
    }
    let path = parts.path.isEmpty ? "/" : parts.path
    let query = parts.queryItems ?? []
    func queryMatches(_ name: String, _ pattern: String) -> Bool {
        query.contains { $0.name == name && matches(pattern, $0.value ?? "") }
    }
    var opens: [String] = []
    for statement in statements {
        guard let package = (statement["target"] as? [String: Any])?["package_name"] as? String,
            let rules =
                ((statement["relation_extensions"] as? [String: Any])?["delegate_permission/common.handle_all_urls"]
                as? [String: Any])?["dynamic_app_link_components"] as? [[String: Any]]
        else { continue }
        for rule in rules {
            if let p = rule["/"] as? String, !matches(p, path) { continue }
            if let q = rule["?"] as? [String: String], !q.allSatisfy(queryMatches) {
                continue
            }
            if rule["exclude"] as? Bool != true { opens.append(package) }
            break
        }
    }
    return opens
}
