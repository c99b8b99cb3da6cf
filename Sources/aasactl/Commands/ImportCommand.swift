import AASAAPI
import AASAModel
import ArgumentParser
import Foundation

/// `aasactl import`: move a domain's existing AASA file in (`POST /v1/imports`).
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Import a domain's existing apple-app-site-association and assetlinks.json, proving no link changes.",
        discussion: """
            Reads what HOST serves today (FILE and/or --android-file, or fetched by the server from \
            the origin, both files, or Apple's CDN, as the probe fetches: TLS verified, no redirect, \
            size limit) into apps, grants and rules: each app goes to the team the team map names \
            for its app ID, its Apple Team ID prefix or its package name (the most specific key \
            wins). The server writes everything in one transaction, renders the domain and checks \
            that every app decides every URL derived from the files' rules as the files do, with the \
            same apps, order, service lists, packages and signing keys; a file it cannot say exactly \
            is refused, naming why. An Android statement without dynamic rules (its manifest \
            decides) is a claim on the whole domain: its team gets a grant of /.

            Without --apply it only plans (nothing is written). Prints the plan like `plan` does.
            Exit status: 0 no changes, 2 changes (planned or applied), 1 errors.

            The team map is YAML or JSON, one pair per line:
              ABCDE12345: shop                 # every app under this Team ID
              ABCDE12345.com.example.news: news   # this app, whatever its Team ID says
              com.example.android: shop        # an Android package (or a dotted prefix of one)
            """
    )
    @OptionGroup var remote: RemoteOptions

    @Argument(help: "The domain: created when it does not exist, imported into when it does.")
    var host: String?

    @Option(help: "A file of hosts, one per line (# comments): each is imported from its origin (or --from-cdn).")
    var hosts: String?

    @Option(help: "Write one manifest per team (DIR/TEAM.yaml) from the imported rules.")
    var writeManifests: String?

    @Option(
        name: [.short, .customLong("file")], help: "The AASA file as the domain serves it; - reads standard input.")
    var file: String?

    @Option(help: "The assetlinks.json as the domain serves it (with --file, or alone).")
    var androidFile: String?

    @Option(help: "The /.well-known/webauthn as the domain serves it (beside --file or --android-file).")
    var webauthnFile: String?

    @Flag(help: "Let the server fetch both files from https://HOST/.well-known/ as Apple's fetcher would.")
    var fromOrigin = false

    @Flag(help: "Let the server fetch Apple's CDN copy of the file.")
    var fromCdn = false

    @Option(help: "The team map (YAML or JSON): Team ID prefix, app ID or package name → team.")
    var teamMap: String

    @Option(help: "A web root of a domain the import creates (repeatable).")
    var webRoot: [String] = []

    @Option(help: "The environment of a domain the import creates (required once there are several).")
    var env: String?

    @Flag(help: "Write the import (default: plan only).")
    var apply = false

    @Option(help: "With --apply: the plan's state tag; refused if anything the import writes changed since.")
    var ifMatch: String?

    @Flag(help: "With --apply: publish the domain afterwards.")
    var publish = false

    @Option(help: "The publish reason (with --publish).")
    var reason: String?

    func validate() throws {
        if (host == nil) == (hosts == nil) { throw ValidationError("give a HOST, or --hosts FILE") }
        if hosts != nil && file != nil { throw ValidationError("--hosts fetches each host: --file goes with one HOST") }
        if hosts != nil && androidFile != nil {
            throw ValidationError("--hosts fetches each host: --android-file goes with one HOST")
        }
        let sources = [file != nil || androidFile != nil, fromOrigin, fromCdn].filter { $0 }.count
        if hosts == nil && sources != 1 {
            throw ValidationError("give --file and/or --android-file, or one of --from-origin and --from-cdn")
        }
        if publish && !apply { throw ValidationError("--publish goes with --apply") }
        if ifMatch != nil && hosts != nil {
            throw ValidationError("--if-match names one host's plan: not with --hosts")
        }
        if publish && (reason ?? "").isEmpty { throw ValidationError("--publish needs --reason") }
    }

    func run() async throws {
        // The file and the team map are read once, whatever the number of hosts.
        let shared = try sharedBody()
        if let hosts {
            try await runMany(try Self.hostList(hosts), shared: shared)
            return
        }
        let answer = try await remote.client.send(
            .post, APIClient.path("v1", "imports"), body: Self.body(host ?? "", shared: shared),
            headers: ifMatch.map { [("If-Match", $0)] } ?? [])
        let plan = try answer.decode(Components.Schemas.ImportPlan.self)
        try remote.show(answer, plan) { ImportText.lines($0) }
        if let writeManifests {
            try ImportManifests.write(ImportManifests.manifests(from: [try answer.json()]), to: writeManifests)
        }
        if plan.changed { throw ExitCode(2) }
    }

    /// The request for one host.
    static func body(_ host: String, shared: JSONObject) -> JSONValue {
        var body = JSONObject()
        body.append("host", .string(host))
        body.members += shared.members
        return .object(body)
    }

    /// What every host's request carries: the file (or where to fetch it), the team map, the flags.
    func sharedBody() throws -> JSONObject {
        var body = JSONObject()
        if let file {
            // Text as it is; the iOS 8 CMS-signed form (binary) as its bytes in base64.
            let bytes = try CLIOutput.read(file)
            if let text = String(validating: bytes, as: UTF8.self) {
                body.append("aasa", .string(text))
            } else {
                body.append("aasaBase64", .string(Data(bytes).base64EncodedString()))
            }
        } else if androidFile == nil {
            body.append("source", .string(fromCdn ? "cdn" : "origin"))
        }
        if let androidFile {
            body.append("assetlinks", .string(String(decoding: try CLIOutput.read(androidFile), as: UTF8.self)))
        }
        if let webauthnFile {
            body.append("webauthn", .string(String(decoding: try CLIOutput.read(webauthnFile), as: UTF8.self)))
        }
        body.append("teamMap", try Self.teamMap(teamMap))
        if !webRoot.isEmpty { body.append("webRoots", .array(webRoot.map(JSONValue.string))) }
        if let env { body.append("environment", .string(env)) }
        body.append("apply", .bool(apply))
        if publish {
            body.append("publish", .bool(true))
            body.append("reason", .string(reason ?? ""))
        }
        return body
    }

    /// `--hosts`: every host in turn, a failing one not stopping the others; a progress bar on
    /// standard error when it is a terminal, a summary table at the end. Exit 1 if any failed,
    /// else 2 if any changed.
    func runMany(_ list: [String], shared: JSONObject) async throws {
        let terminal = isatty(STDERR_FILENO) == 1
        var rows: [[String]] = []
        var plans: [JSONValue] = []
        var failed = false
        var changed = false
        for (i, host) in list.enumerated() {
            if terminal { Self.progress(i, of: list.count, host: host) }
            do {
                let answer = try await remote.client.send(
                    .post, APIClient.path("v1", "imports"), body: Self.body(host, shared: shared))
                plans.append(try answer.json())
                let plan = try answer.decode(Components.Schemas.ImportPlan.self)
                changed = changed || plan.changed
                rows.append([
                    host, plan.changed ? (apply ? "applied" : "changes") : "no changes", String(plan.apps.count),
                    String(plan.proof.urlsChecked), "",
                ])
            } catch let failure as APIFailure {
                failed = true
                rows.append([
                    host, "FAILED", "-", "-", failure.errors.first?.message ?? failure.detail ?? failure.title,
                ])
            } catch {
                failed = true
                rows.append([host, "FAILED", "-", "-", String(describing: error)])
            }
        }
        if terminal { Self.progress(list.count, of: list.count, host: "") }
        Table.align([["HOST", "RESULT", "APPS", "URLS CHECKED", "WHY"]] + rows).forEach(CLIOutput.print)
        if let writeManifests { try ImportManifests.write(ImportManifests.manifests(from: plans), to: writeManifests) }
        if failed { throw ExitCode(1) }
        if changed { throw ExitCode(2) }
    }

    static func progress(_ done: Int, of total: Int, host: String) {
        let width = 30
        let filled = total == 0 ? width : done * width / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        FileHandle.standardError.write(
            Data("\r[\(bar)] \(done)/\(total) \(host)".padding(toLength: 80, withPad: " ", startingAt: 0).utf8))
        if done == total { FileHandle.standardError.write(Data("\n".utf8)) }
    }

    static func hostList(_ path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path) else { throw CLIFailure("cannot read \(path)") }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).compactMap { line in
            let host =
                line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first?
                .trimmingCharacters(in: .whitespaces) ?? ""
            return host.isEmpty ? nil : host
        }
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
    static func lines(_ plan: Components.Schemas.ImportPlan) -> [String] {
        var lines: [String] = []
        lines.append(plan.createsDomain ? "+ domain \(plan.host)" : "domain \(plan.host)")
        for app in plan.apps {
            let what =
                app.manifestDecides == true ? "its manifest decides (no dynamic rules)" : "\(app.rules.count) rule(s)"
            lines.append(
                "\(app.action == .create ? "+" : " ") app \(app.appID) → team \(ContractAnswer.cell(app.team)) "
                    + "(\(ContractAnswer.cell(app.services.map(\.rawValue)))), \(what)")
        }
        for grant in plan.grants {
            let wide = grant.domainWide ? " (a catch-all rule: the whole domain)" : ""
            lines.append(
                "\(grant.action == .keep ? " " : "+") grant \(ContractAnswer.cell(grant.team)): "
                    + grant.pathPrefixes.map { ContractAnswer.cell($0.path) }.joined(separator: ", ") + wide)
        }
        for note in plan.notes { lines.append("note: \(note)") }
        lines += Table.findings(plan.diagnostics, heading: "The file's warnings:")
        if plan.proof.urlsChecked != 0 || plan.androidProof == nil {
            lines.append(
                "Proof: \(plan.proof.holds ? "holds" : "FAILS") on \(plan.proof.urlsChecked) URL(s)"
                    + (plan.proof.sameBytes ? ", same bytes" : "; the bytes differ in form only"))
        }
        if let android = plan.androidProof {
            lines.append(
                "assetlinks.json proof: \(android.holds ? "holds" : "FAILS") on \(android.urlsChecked) URL(s)"
                    + (android.sameBytes ? ", same bytes" : "; the bytes differ in form only"))
        }
        if let origins = plan.relatedOrigins {
            lines.append("Related origins (/.well-known/webauthn): " + origins.joined(separator: ", "))
        }
        lines.append(
            !plan.changed
                ? "No changes: the registry already says what the file says."
                : plan.applied
                    ? "Applied."
                    : "Plan only: run again with --apply --if-match '\(plan.stateTag)' to write exactly this plan.")
        if let publish = plan.publish { lines += publishLines(publish) }
        return lines
    }
}
