import AASAKernel
import AASAOutbound
import AASARules
import AASAServices
import Foundation

/// Apple's CDN state over time as a picture: one band per recorded check, coloured by its state
/// (current, stale, error, …) and as wide as the time until the next check, with the revision the
/// CDN served written in when there is room. Oldest on the left.
struct CDNTimeline {
    var history: [(at: Date, state: String, revision: Int?)]

    static let colours = ["current": "#2e7d32", "stale": "#e65100", "error": "#b00020", "unpublished": "#757575"]

    func svg() -> String {
        let formatter = ISO8601DateFormatter()
        let points = history.map { ($0.at, $0.state, $0.revision) }.sorted { $0.0 < $1.0 }
        guard let first = points.first?.0, let last = points.last?.0 else {
            return "<p>No check recorded yet.</p>"
        }
        let width = 720.0
        let span = max(last.timeIntervalSince(first), 1)
        // The last check gets a tenth of the width, so a single check still shows.
        let scale = (width * 0.9) / span
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" class="timeline" role="img" aria-labelledby="tl-title tl-desc" \
            width="\(Int(width) + 20)" height="70" viewBox="0 0 \(Int(width) + 20) 70">
            <title id="tl-title">Apple's CDN over time</title>
            <desc id="tl-desc">\(points.count) checks from \(formatter.string(from: first)) to \
            \(formatter.string(from: last))</desc>

            """
        for (i, point) in points.enumerated() {
            let x = 10 + point.0.timeIntervalSince(first) * scale
            let end = i + 1 < points.count ? 10 + points[i + 1].0.timeIntervalSince(first) * scale : width + 10
            let colour = Self.colours[point.1] ?? "#455a64"
            let label = "\(formatter.string(from: point.0)): \(point.1)" + (point.2.map { ", revision \($0)" } ?? "")
            out += """
                <rect x="\(Int(x))" y="10" width="\(max(Int(end - x), 2))" height="30" fill="\(colour)">\
                <title>\(SVGText.escape(label))</title></rect>

                """
            if let revision = point.2, end - x > 24 {
                out += "<text x=\"\(Int(x) + 4)\" y=\"30\" font-size=\"12\" fill=\"#fff\">r\(revision)</text>\n"
            }
        }
        out += "<text x=\"10\" y=\"60\" font-size=\"12\" fill=\"#111\">\(formatter.string(from: first))</text>\n"
        out +=
            "<text x=\"\(Int(width) - 150)\" y=\"60\" font-size=\"12\" fill=\"#111\">"
            + "\(formatter.string(from: last))</text>\n"
        return out + "</svg>"
    }
}
