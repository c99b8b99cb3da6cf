import AASAKernel
import AASAModel
import AASAOutbound
import AASARules
import AASAServices

/// The path space of one domain as a picture (issue 21): one row per path prefix (every grant's,
/// every rule's literal prefix, every protected path), indented by depth, filled with the colour of
/// the team whose grant holds it and outlined where a grant begins. Each rule is a dot on the row
/// where it acts, in its own team's colour: a hollow dot excludes, a cross is shadowed, and a ring
/// around the row's label marks rules of two teams acting on one prefix (an overlap). Protected
/// paths get a dashed red frame. Everything a team wrote is escaped (`SVGText`).
struct PathSpaceMap {
    struct Rule {
        var team: String
        var path: String
        var exclude: Bool
        var shadowed: Bool
    }

    var grants: [(team: String, prefixes: [String])]
    var rules: [Rule]
    var protected: [String]

    static let rowHeight = 22
    static let labelWidth = 360
    static let dot = 12

    /// The literal part of a pattern (as a grant reads it: up to its first wildcard or
    /// substitution variable), cut back to its last `/`: where the rule acts.
    static func prefix(of pattern: String) -> String {
        let literal = PathGrant.literalStart(of: pattern)
        if literal.count == pattern.count { return pattern }
        guard let slash = literal.lastIndex(of: "/") else { return "/" }
        return String(literal[...slash])
    }

    func svg() -> String {
        let teams = Array(Set(grants.map(\.team) + rules.map(\.team))).sorted()
        let colour = Dictionary(
            uniqueKeysWithValues: teams.enumerated().map { ($0.element, SVGText.palette[$0.offset % 10]) })
        let grantPrefixes = grants.flatMap { g in g.prefixes.map { (team: g.team, prefix: $0) } }
        let byRow = Dictionary(grouping: rules) { Self.prefix(of: $0.path) }
        let rows = Array(Set(grantPrefixes.map(\.prefix) + byRow.keys + protected)).sorted()
        let widest = rows.map { byRow[$0]?.count ?? 0 }.max() ?? 0
        let width = Self.labelWidth + 40 + max(widest, 8) * (Self.dot + 4)
        let legendHeight = 28
        let height = legendHeight + rows.count * Self.rowHeight + 8
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" class="map" role="img" aria-labelledby="map-title map-desc" \
            width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)">
            <title id="map-title">Path space</title>
            <desc id="map-desc">\(rows.count) path prefixes, \(rules.count) rules, \(teams.count) teams</desc>

            """
        var x = 4
        for team in teams {
            out += """
                <rect x="\(x)" y="4" width="14" height="14" fill="\(colour[team]!)" stroke="#333"/>\
                <text x="\(x + 18)" y="16" font-size="12" fill="#111">\(SVGText.escape(team))</text>

                """
            x += 30 + team.count * 7
        }
        for (i, row) in rows.enumerated() {
            let y = legendHeight + i * Self.rowHeight
            let owner = grantPrefixes.filter { row.hasPrefix($0.prefix) }.max { $0.prefix.count < $1.prefix.count }
            let depth = max(0, row.split(separator: "/").count - (row.hasSuffix("/") ? 0 : 1))
            let indent = min(depth * 12, 120)
            let fill = owner.map { colour[$0.team]! } ?? "#ffffff"
            let isGrant = grantPrefixes.contains { $0.prefix == row }
            let rowRules = byRow[row] ?? []
            let overlap = Set(rowRules.map(\.team)).count > 1
            out += """
                <g><title>\(SVGText.escape(row))\(owner.map { " · " + SVGText.escape($0.team) } ?? " · no grant")\
                \(overlap ? " · overlap" : "")</title>
                <rect x="\(4 + indent)" y="\(y + 2)" width="\(Self.labelWidth - indent)" \
                height="\(Self.rowHeight - 4)" \
                fill="\(fill)" stroke="\(isGrant ? "#111" : "none")" stroke-width="\(isGrant ? 2 : 0)"/>
                <text x="\(10 + indent)" y="\(y + 16)" font-size="12" font-family="monospace" fill="#111">\
                \(SVGText.escape(row))</text>

                """
            if protected.contains(row) {
                out += """
                    <rect x="\(2 + indent)" y="\(y + 1)" width="\(Self.labelWidth - indent + 4)" \
                    height="\(Self.rowHeight - 2)" fill="none" stroke="#b00020" stroke-dasharray="4 2"/>

                    """
            }
            if overlap {
                out +=
                    "<circle cx=\"\(Self.labelWidth + 18)\" cy=\"\(y + 11)\" r=\"8\" fill=\"none\" stroke=\"#b00020\" "
                out += "stroke-width=\"2\"/>\n"
            }
            for (j, rule) in rowRules.enumerated() {
                let cx = Self.labelWidth + 40 + j * (Self.dot + 4) + Self.dot / 2
                let cy = y + 11
                let c = colour[rule.team]!
                out += "<circle cx=\"\(cx)\" cy=\"\(cy)\" r=\"\(Self.dot / 2)\" "
                out +=
                    rule.exclude ? "fill=\"#fff\" stroke=\"#333\" stroke-width=\"2\"" : "fill=\"\(c)\" stroke=\"#333\""
                out += "><title>\(SVGText.escape(rule.team)): \(SVGText.escape(rule.path))"
                out += "\(rule.exclude ? " (exclude)" : "")\(rule.shadowed ? " (shadowed)" : "")</title></circle>\n"
                if rule.shadowed {
                    out +=
                        "<path d=\"M\(cx - 5) \(cy - 5) L\(cx + 5) \(cy + 5) "
                        + "M\(cx + 5) \(cy - 5) L\(cx - 5) \(cy + 5)\" "
                    out += "stroke=\"#b00020\" stroke-width=\"2\"/>\n"
                }
            }
            out += "</g>\n"
        }
        return out + "</svg>"
    }
}
