import AASATestSupport
import Foundation
import Testing

/// Issue 41: `aasactl import --help` wrapped mid-sentence ("fetched by the server from / the
/// origin"), because its discussion carried hard line breaks that ArgumentParser wrapped again.
/// Every subcommand's help, at an 80-column terminal, must have no line that a paragraph broke
/// early: a prose line followed by more of the same paragraph, when the next word would have fit.
@Suite struct HelpTextTests {
    static let columns = 80

    func help(_ path: [String]) throws -> String {
        var environment = ProcessInfo.processInfo.environment
        environment["COLUMNS"] = String(Self.columns)
        let result = try Spawn.run(CLITests.binary.path, path + ["--help"], environment: environment)
        return String(decoding: result.out + result.err, as: UTF8.self)
    }

    /// The names under `SUBCOMMANDS:` (not `help`).
    static func subcommands(_ text: String) -> [String] {
        var names: [String] = []
        var inside = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SUBCOMMANDS:") {
                inside = true
                continue
            }
            guard inside else { continue }
            if line.isEmpty { if names.isEmpty { continue } else { break } }
            guard line.hasPrefix("  ") else { break }
            guard !line.hasPrefix("   "), let word = line.split(separator: " ").first else { continue }
            let name = String(word.split(separator: ",")[0])
            if name != "help" { names.append(name) }
        }
        return names
    }

    /// Lines of prose that end although the next line's first word would have fitted after them.
    static func earlyBreaks(_ text: String) -> [(String, String)] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var found: [(String, String)] = []
        for (a, b) in zip(lines, lines.dropFirst()) {
            guard let last = a.last, let first = b.first, a.first != " ", first != " ", !a.hasPrefix("OVERVIEW:")
            else { continue }
            if ".:!?;".contains(last) || b.hasPrefix("-") || b.hasPrefix("*") || b.hasPrefix("Exit status") { continue }
            if b.range(of: #"^[A-Z][A-Z ]+:"#, options: .regularExpression) != nil { continue }
            let word = b.split(separator: " ").first.map(String.init) ?? b
            // ArgumentParser's own wrapping leaves a little slack; a hard break leaves more.
            if a.count + 1 + word.count <= columns - 8 { found.append((a, b)) }
        }
        return found
    }

    @Test func noSubcommandsHelpBreaksAParagraphEarly() throws {
        var pending: [[String]] = [[]]
        var seen = 0
        while let path = pending.popLast() {
            let text = try help(path)
            seen += 1
            for (a, b) in Self.earlyBreaks(text) {
                Issue.record("aasactl \(path.joined(separator: " ")) --help breaks a sentence: \"\(a)\" / \"\(b)\"")
            }
            for line in text.split(separator: "\n") where line.count > Self.columns && !line.hasPrefix("USAGE:") {
                Issue.record("aasactl \(path.joined(separator: " ")) --help has a line over 80 columns: \(line)")
            }
            // Issue 63: a name split from a Swift name (`<rp-i-ds>` for `rpIDs`) reads as broken help.
            for line in text.split(separator: "\n") where line.contains("-i-d") {
                Issue.record("aasactl \(path.joined(separator: " ")) --help names a value oddly: \(line)")
            }
            pending += Self.subcommands(text).map { path + [$0] }
        }
        #expect(seen > 30, "every subcommand was visited (\(seen))")
    }

    /// The check finds what it is for: the old text of `import --help`.
    @Test func theCheckFindsAHardBreak() {
        let old = """
            Reads what HOST serves today (FILE and/or --android-file, or fetched by the
            server from
            the origin, both files, or Apple's CDN, as the probe fetches: TLS verified, no
            """
        #expect(Self.earlyBreaks(old).count == 1)
    }
}
