import AASAModel
import ArgumentParser

struct Match: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Which app opens each URL, by Apple's rules.",
        discussion: """
            For each URL: the app ID that opens it (the first app, in order of appearance, whose own \
            decision is match), or none. With --json, an array of
              {"url", "appID": string|null, "detailsIndex": int|null, "componentIndex": int|null,
               "pathIndex": int|null, "excluded": bool}
            excluded is true when no app opens the URL and an exclude rule stopped at least one app.
            Exit status: 0 when the file was read (whatever the answers), 1 when it is not a document.

            Without --file, the server answers (POST /v1/match) from the domain's published \
            revision, or its draft with --draft, naming the team, app and rule that decided.
            """
    )

    @Flag(help: "Print a JSON array.")
    var json = false

    @Option(name: .long, help: "The AASA file; - reads standard input. Without it, ask the server.")
    var file: String?

    @Flag(help: "With the server: match against the draft instead of the published revision.")
    var draft = false

    @OptionGroup var remote: RemoteOptions

    @Option(help: "The host the file is served for: URLs on other hosts open no app.")
    var domain: String?

    @Flag(help: "Explain: each app's rules in order, the first component that failed, the closest rule and hints.")
    var explain = false

    @Option(name: .customLong("expect"), help: "With --explain: the app you expected to open the URL.")
    var expectedApp: String?

    @Option(
        help:
            """
            ios (an apple-app-site-association file) or android (an assetlinks.json with Dynamic App Links \
            rules); with the server also both.
            """
    )
    var platform: String = "ios"

    @Argument(help: "URLs (https://host/path?query#fragment) or bare paths (/path).")
    var urls: [String]

    func validate() throws {
        if urls.isEmpty { throw ValidationError("name at least one URL") }
    }

    func run() async throws {
        guard let file else { return try await runRemote() }
        if platform == "android" { return try runAndroid(file) }
        guard platform == "ios" else { throw ValidationError("--platform is ios or android") }
        let parsed = AASAParser.parse(try CLIOutput.read(file))
        guard let document = parsed.document else {
            for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
            throw ExitCode(1)
        }
        let matcher = AASAMatcher(document)
        let results = urls.map { (url: $0, resolution: matcher.resolve(url: $0, domain: domain)) }
        if explain {
            let explained = urls.map {
                (url: $0, explanation: matcher.explain(url: $0, domain: domain, expectedApp: expectedApp))
            }
            if json {
                CLIOutput.json(
                    .array(
                        explained.map {
                            .object([
                                "url": .string($0.url),
                                "appID": $0.explanation.resolution.appID.map(JSONValue.string) ?? .null,
                                "explanation": $0.explanation.jsonValue(),
                            ])
                        }), pretty: false)
                return
            }
            for (url, e) in explained {
                CLIOutput.print("\(url) -> \(e.resolution.appID ?? "none")")
                Explanation.textLines(json: e.jsonValue()).forEach(CLIOutput.print)
            }
            return
        }
        if json {
            CLIOutput.json(.array(results.map { $0.resolution.jsonValue(url: $0.url) }), pretty: false)
            return
        }
        for (url, r) in results {
            if let app = r.appID {
                CLIOutput.print("\(url) -> \(app) (\(r.rule.map { "rule \($0)" } ?? ""))")
            } else {
                CLIOutput.print("\(url) -> none\(r.excluded ? " (excluded)" : "")")
            }
        }
    }

    /// Each URL's decision for every app of an assetlinks.json (docs/assetlinks-spec.md, "Matching").
    private func runAndroid(_ file: String) throws {
        let parsed = AssetLinksDocument.parse(try CLIOutput.read(file))
        guard let document = parsed.document else {
            for d in parsed.diagnostics { CLIOutput.error("\(file): \(d)") }
            throw ExitCode(1)
        }
        let matcher = AndroidMatcher(document)
        for url in urls {
            let decisions = matcher.decisions(url: url)
            if json {
                CLIOutput.json(
                    .object([
                        "url": .string(url),
                        "decisions": .array(
                            decisions.map {
                                .object([
                                    "packageName": .string($0.packageName), "decision": .string($0.decision.rawValue),
                                    "rule": $0.rule.map { .number(String($0)) } ?? .null,
                                ])
                            }),
                    ]), pretty: false)
                continue
            }
            let opens = decisions.filter { $0.decision == .open }.map(\.packageName)
            CLIOutput.print("\(url) -> \(opens.isEmpty ? "none" : opens.joined(separator: ", "))")
            for d in decisions {
                CLIOutput.print("  \(d.packageName): \(d.decision.rawValue)" + (d.rule.map { " (rule \($0))" } ?? ""))
            }
        }
    }

    private func runRemote() async throws {
        let client = try remote.client
        var answers: [APIResponse] = []
        for url in urls {
            var body: JSONObject = ["url": .string(url), "source": .string(draft ? "draft" : "published")]
            if explain { body.append("explain", .bool(true)) }
            if let expectedApp { body.append("expectedAppID", .string(expectedApp)) }
            guard ["ios", "android", "both"].contains(platform) else {
                throw ValidationError("--platform is ios, android or both")
            }
            if platform != "ios" { body.append("platform", .string(platform)) }
            answers.append(try await client.send(.post, "/v1/match", body: .object(body)))
        }
        if json || remote.output == .json {
            if !remote.quiet { CLIOutput.json(.array(try answers.map { try $0.json() })) }
            return
        }
        for answer in answers {
            try remote.show(answer) { r in
                let source =
                    Table.value(r, "source") + (r.objectValue?["revision"].map { " revision " + Table.text($0) } ?? "")
                var line =
                    """
                    \(Table.value(r, "url")) -> \
                    \(Table.value(r, "appID") == "-" ? "none" : Table.value(r, "appID")) \
                    [\(Table.value(r, "host")) \(source)]
                    """
                if r.objectValue?["rule"] != nil {
                    line += " rule \(Table.value(r, "rule.path"))"
                    if let team = r.objectValue?["rule"]?.objectValue?["team"]?.stringValue {
                        line += " (team \(team), rule \(Table.value(r, "rule.ruleID")))"
                    }
                }
                let excluded = (r.objectValue?["decisions"]?.arrayValue ?? []).filter {
                    Table.value($0, "decision") == "exclude"
                }
                if Table.value(r, "appID") == "-", !excluded.isEmpty {
                    line +=
                        """
                         (excluded: an exclude rule decides it for \
                        \(excluded.map { Table.value($0, "appID") }.joined(separator: ", ")))
                        """
                }
                if let parent = r.objectValue?["wildcardParent"]?.stringValue {
                    line += " (no domain of its own: apps with applinks:*.\(parent) read \(parent)'s file)"
                }
                if platform == "android" {
                    line = "\(Table.value(r, "url")) [\(Table.value(r, "host")) \(Table.value(r, "source"))]"
                }
                var lines = [line] + (r.objectValue?["explanation"].map(Explanation.textLines) ?? [])
                if let android = r.objectValue?["android"] {
                    let opens = android.objectValue?["opens"]?.arrayValue?.compactMap(\.stringValue) ?? []
                    lines.append(
                        "  Android -> \(opens.isEmpty ? "none" : opens.joined(separator: ", "))"
                            + (android.objectValue?["revision"].map { " (assetlinks.json revision \(Table.text($0)))" }
                                ?? ""))
                    for d in android.objectValue?["decisions"]?.arrayValue ?? [] {
                        lines.append(
                            "    \(Table.value(d, "packageName")): \(Table.value(d, "decision"))"
                                + (d.objectValue?["ruleIndex"].map { rule in
                                    let team = d.objectValue?["team"]?.stringValue.map { ", team " + $0 } ?? ""
                                    return " (rule \(Table.text(rule))\(team))"
                                } ?? ""))
                    }
                }
                if let disagreement = r.objectValue?["disagreement"]?.stringValue {
                    lines.append("  platforms disagree: \(disagreement)")
                }
                return lines
            }
        }
    }
}
