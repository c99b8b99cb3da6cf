import AASAModel
import ArgumentParser
import Foundation

/// `aasactl import`: move a domain's existing AASA file in (`POST /v1/imports`).
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Import a domain's existing apple-app-site-association file, with a proof that no link changes.",
        discussion: """
            Reads FILE (what HOST serves today) into apps, grants and rules: each app goes to the team
            the team map names for its app ID or its Apple Team ID prefix (the app ID wins). The
            server writes everything in one transaction, renders the domain and checks that every
            app decides every URL derived from the file's rules as the file does, with the same apps,
            order and service lists; a file it cannot say exactly is refused, naming why.

            Without --apply it only plans (nothing is written). Prints the plan like `plan` does.
            Exit status: 0 no changes, 2 changes (planned or applied), 1 errors.

            The team map is YAML or JSON, one pair per line:
              ABCDE12345: shop                 # every app under this Team ID
              ABCDE12345.com.example.news: news   # this app, whatever its Team ID says
            """
    )
    @OptionGroup var remote: RemoteOptions

    @Argument(help: "The domain: created when it does not exist, imported into when it does.")
    var host: String

    @Option(
        name: [.short, .customLong("file")], help: "The AASA file as the domain serves it; - reads standard input.")
    var file: String

    @Option(help: "The team map (YAML or JSON): Team ID prefix, app ID or package name → team.")
    var teamMap: String

    @Option(help: "A web root of a domain the import creates (repeatable).")
    var webRoot: [String] = []

    @Flag(help: "Write the import (default: plan only).")
    var apply = false

    @Flag(help: "With --apply: publish the domain afterwards.")
    var publish = false

    @Option(help: "The publish reason (with --publish).")
    var reason: String?

    func validate() throws {
        if publish && !apply { throw ValidationError("--publish goes with --apply") }
        if publish && (reason ?? "").isEmpty { throw ValidationError("--publish needs --reason") }
    }

    func run() async throws {
        let text: String
        if file == "-" {
            text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        } else {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIFailure("cannot read \(file)") }
            guard let decoded = String(data: data, encoding: .utf8) else {
                throw CLIFailure("\(file) is not text (a CMS-signed file is not imported yet)")
            }
            text = decoded
        }
        var body = JSONObject()
        body.append("host", .string(host))
        body.append("aasa", .string(text))
        body.append("teamMap", try Self.teamMap(teamMap))
        if !webRoot.isEmpty { body.append("webRoots", .array(webRoot.map(JSONValue.string))) }
        body.append("apply", .bool(apply))
        if publish {
            body.append("publish", .bool(true))
            body.append("reason", .string(reason ?? ""))
        }
        let answer = try await remote.client.send(.post, APIClient.path("v1", "imports"), body: .object(body))
        try remote.show(answer) { ImportText.lines($0) }
        if try answer.json().objectValue?["changed"]?.boolValue == true { throw ExitCode(2) }
    }

    /// The map file as a JSON object of strings.
    static func teamMap(_ path: String) throws -> JSONValue {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("cannot read \(path)") }
        let value = try YAMLJSON.parse(String(decoding: data, as: UTF8.self), file: path)
        guard case .object(let object) = value else { throw CLIFailure("\(path): a team map is key: team pairs") }
        var map = JSONObject()
        for member in object {
            // YAML reads a Team ID of digits only as a number: it is still a key naming a team.
            guard let team = member.value.stringValue else {
                throw CLIFailure("\(path): \(member.key) names no team (write \(member.key): TEAM)")
            }
            map.append(member.key, .string(team))
        }
        return .object(map)
    }
}

/// An import plan for people: the domain, each app with its team and rules, the grants, the proof.
enum ImportText {
    static func lines(_ json: JSONValue) -> [String] {
        let o = json.objectValue ?? [:]
        var lines: [String] = []
        let host = Table.value(json, "host")
        lines.append(o["createsDomain"]?.boolValue == true ? "+ domain \(host)" : "domain \(host)")
        for app in o["apps"]?.arrayValue ?? [] {
            let sign = Table.value(app, "action") == "create" ? "+" : " "
            let rules = app.objectValue?["rules"]?.arrayValue?.count ?? 0
            lines.append(
                "\(sign) app \(Table.value(app, "appID")) → team \(Table.value(app, "team")) "
                    + "(\(Table.value(app, "services"))), \(rules) rule(s)")
        }
        for grant in o["grants"]?.arrayValue ?? [] {
            let prefixes = (grant.objectValue?["pathPrefixes"]?.arrayValue ?? []).map { Table.value($0, "path") }
            let wide =
                grant.objectValue?["domainWide"]?.boolValue == true ? " (a catch-all rule: the whole domain)" : ""
            lines.append(
                "\(Table.value(grant, "action") == "keep" ? " " : "+") grant \(Table.value(grant, "team")): "
                    + prefixes.joined(separator: ", ") + wide)
        }
        for note in o["notes"]?.arrayValue ?? [] { lines.append("note: \(note.stringValue ?? "")") }
        lines += Table.findings(o["diagnostics"], heading: "The file's warnings:")
        let proof = o["proof"]?.objectValue ?? [:]
        lines.append(
            "Proof: \(proof["holds"]?.boolValue == true ? "holds" : "FAILS") on "
                + "\(Table.value(json, "proof.urlsChecked")) URL(s)"
                + (proof["sameBytes"]?.boolValue == true ? ", same bytes" : "; the bytes differ in form only"))
        let changed = o["changed"]?.boolValue == true
        let applied = o["applied"]?.boolValue == true
        lines.append(
            !changed
                ? "No changes: the registry already says what the file says."
                : applied ? "Applied." : "Plan only: run again with --apply to write it.")
        if let publish = o["publish"] { lines += publishLines(publish) }
        return lines
    }
}
