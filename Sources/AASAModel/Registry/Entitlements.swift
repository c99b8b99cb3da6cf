/// The `com.apple.developer.associated-domains` entitlement an app needs for the files this
/// service publishes: `applinks:` for every domain (and alias) where it has rules, and
/// `webcredentials:`, `appclips:`, `activitycontinuation:` where it is listed for those services.
public enum AssociatedDomains {
    /// `?mode=` suffixes: `developer` makes the device fetch from the origin, bypassing Apple's
    /// CDN (development-signed apps with Associated Domains Development on); `managed` is for
    /// MDM-managed devices.
    public enum Mode: String, Sendable, CaseIterable {
        case developer
        case managed
        case developerManaged = "developer+managed"
    }

    public static let entitlementKey = "com.apple.developer.associated-domains"

    /// Entries in a stable order: by service (applinks, webcredentials, appclips,
    /// activitycontinuation), then by host. Hosts are given in punycode.
    public static func entries(_ hosts: [AppService: [String]], mode: Mode?) -> [String] {
        var out: [String] = []
        for service in [AppService.applinks, .webcredentials, .appclips, .activitycontinuation] {
            for host in Set(hosts[service] ?? []).sorted() {
                out.append("\(service.rawValue):\(host)" + (mode.map { "?mode=\($0.rawValue)" } ?? ""))
            }
        }
        return out
    }

    /// An `.entitlements` property list holding just this entitlement.
    public static func plist(_ entries: [String]) -> String {
        func escape(_ s: String) -> String {
            var out = ""
            for c in s {
                switch c {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                default: out.append(c)
                }
            }
            return out
        }
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
            #"<plist version="1.0">"#,
            "<dict>",
            "\t<key>\(entitlementKey)</key>",
            "\t<array>",
        ]
        lines += entries.map { "\t\t<string>\(escape($0))</string>" }
        lines += ["\t</array>", "</dict>", "</plist>", ""]
        return lines.joined(separator: "\n")
    }
}
