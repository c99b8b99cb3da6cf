import AASAAPI
import AASAModel
import ArgumentParser
import Foundation

/// What `plan` and `apply` share: the manifest, its team, and the dry run that makes a plan.
struct ManifestOptions: ParsableArguments {
    @Option(name: [.short, .customLong("file")], help: "The manifest (YAML or JSON); - reads standard input.")
    var file: String

    @Option(help: "The team (default: the manifest's `team`, else the logged-in token's team).")
    var team: String?

    @Option(help: "Only this environment: its domains' rules and its builds.")
    var env: String?

    func load(_ remote: RemoteOptions) async throws -> (manifest: ManifestFile, team: String) {
        var manifest = try ManifestFile.load(file)
        if let env { manifest = try manifest.only(environment: env) }
        if let team, let declared = manifest.team, team != declared {
            throw CLIFailure("--team \(team) differs from the manifest's team \(declared)")
        }
        if let team = team ?? manifest.team { return (manifest, team) }
        return (manifest, try await remote.team(nil))
    }

    static func endpoint(_ team: String) -> String { APIClient.path("v1", "teams", team, "manifest") }
}

/// Prints a plan or an apply's answer for people.
typealias ManifestResult = Components.Schemas.ManifestResult

enum PlanText {
    static func lines(_ result: Components.Schemas.ManifestResult, applied: Bool) -> [String] {
        var lines: [String] = []
        var counts = (create: 0, update: 0, ruleSets: 0, domains: 0)
        for app in result.apps {
            switch app.action {
            case .create:
                counts.create += 1
                lines.append("+ app \(app.appID) (\(ContractAnswer.cell(app.services.map(\.rawValue))))")
            case .update:
                counts.update += 1
                let before = ContractAnswer.cell(app.previousServices.map { $0.map(\.rawValue) })
                lines.append(
                    "~ app \(app.appID) services \(before) -> \(ContractAnswer.cell(app.services.map(\.rawValue)))")
            case .unchanged: break
            }
        }
        for domain in result.domains {
            if domain.changed { counts.domains += 1 }
            let label = domain.environment.map { $0 == "default" ? "" : " (\($0))" } ?? ""
            lines.append("\(domain.host)\(label):\(domain.changed ? "" : " no changes")")
            let ruleChanges = domain.rules.filter { $0.action != .unchanged }
            counts.ruleSets += ruleChanges.count
            if applied {
                // The plan was printed before; after applying, only what happened next.
                if let publish = domain.publish { lines += publishLines(publish).map { "  " + $0 } }
                if let error = domain.publishError { lines.append("  PUBLISH FAILED: \(error)") }
                continue
            }
            for rules in ruleChanges {
                lines.append(
                    "  ~ \(rules.appID): \(rules.rulesBefore) -> \(rules.rulesAfter) rules (\(rules.action.rawValue))")
            }
            for origin in domain.relatedOrigins?.added ?? [] { lines.append("  + related origin \(origin)") }
            for origin in domain.relatedOrigins?.removed ?? [] { lines.append("  - related origin \(origin)") }
            for e in domain.expectations ?? [] where e.action != .unchanged {
                let sign = e.action == .create ? "+" : e.action == .delete ? "-" : "~"
                lines.append("  \(sign) expect \(e.url) \(Expectations.target(kind: e.kind.rawValue, appID: e.appID))")
            }
            if domain.changed, let diff = domain.diff.flatMap(ContractAnswer.json) {
                lines += DocumentDiff.textLines(json: diff).map { "    " + $0 }
            }
            lines += Table.findings(domain.warnings, heading: "Warnings:").map { "  " + $0 }
        }
        let changed = result.changed
        if !changed {
            // Said once, by the plan: an apply that publishes an unchanged manifest printed it twice.
            if !applied { lines.append("No changes: the server already matches the manifest.") }
        } else {
            lines.append(
                applied
                    ? """
                    Applied: \(counts.create) app(s) created, \(counts.update) updated, \(counts.ruleSets) rule \
                    set(s) changed on \(counts.domains) domain(s).
                    """
                    : """
                    Plan: \(counts.create) app(s) to create, \(counts.update) to update, \(counts.ruleSets) rule \
                    set(s) to change on \(counts.domains) domain(s).
                    """
            )
        }
        return lines
    }

    /// A refused manifest: the problem with each field named in the file's terms.
    static func failure(_ failure: APIFailure, manifest: ManifestFile) -> [String] {
        var lines = ["error: \(failure.title)" + (failure.errors.isEmpty ? failure.detail.map { ": \($0)" } ?? "" : "")]
        for e in failure.errors { lines.append("  \(manifest.describe(e.field)): \(e.message) [\(e.rule)]") }
        return lines
    }
}

struct Plan: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What applying a manifest would change on the server, without changing it.",
        discussion: """
            Prints the apps to create or update, each domain's rule changes, AASAModel's warnings \
            and the URLs whose opening app would change. --output json prints the server's plan.
            Exit status (like terraform plan -detailed-exitcode): 0 no changes, 2 changes, 1 errors.
            """
    )
    enum Format: String, ExpressibleByArgument, CaseIterable { case text, markdown }

    @OptionGroup var remote: RemoteOptions
    @OptionGroup var options: ManifestOptions

    @Option(help: "text (default) or markdown, as a pull request comment shows it.")
    var format: Format = .text

    @Flag(
        help: """
            Post the plan (markdown) as one comment on the pull or merge request, editing the one an earlier \
            run posted (GitHub: GITHUB_TOKEN; GitLab: GITLAB_TOKEN).
            """)
    var comment = false

    @Option(help: "With --comment: the variable holding the forge's token instead.")
    var commentTokenEnv: String?

    @Flag(help: "Say in the markdown that the apply publishes (apply --publish).")
    var publish = false

    func run() async throws {
        let (manifest, team) = try await options.load(remote)
        let forge =
            comment
            ? try PlanComment.fromEnvironment(ProcessInfo.processInfo.environment, tokenVariable: commentTokenEnv) : nil
        let marker = PlanMarkdown.marker(team: team, environment: options.env)
        let plan: APIResponse
        do {
            plan = try await remote.client.send(
                .post, ManifestOptions.endpoint(team), query: [("dryRun", "true")],
                body: try manifest.body(environment: options.env))
        } catch let failure as APIFailure {
            PlanText.failure(failure, manifest: manifest).forEach(CLIOutput.error)
            let text = PlanMarkdown.refused(failure, manifest: manifest, team: team, environment: options.env)
            if let forge { try await forge.post(text, marker: marker) }
            if format == .markdown { CLIOutput.print(text) }
            throw ExitCode(1)
        }
        let result = try plan.decode(ManifestResult.self)
        let markdown = PlanMarkdown.plan(result, team: team, environment: options.env, publish: publish)
        if let forge {
            try await forge.post(markdown, marker: marker)
            remote.say("The plan is on the \(forge.forge == .github ? "pull" : "merge") request.")
        }
        if format == .markdown && remote.output == .table {
            if !remote.quiet { CLIOutput.print(markdown) }
        } else {
            try remote.show(plan, result) { PlanText.lines($0, applied: false) }
        }
        if result.changed { throw ExitCode(2) }
    }
}

struct Apply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Make the server match a manifest, in one transaction, or change nothing.",
        discussion: """
            Plans first and shows the plan, then applies exactly that plan: the plan's state tag \
            goes as If-Match (someone changing the same apps in between gives an error, not a lost \
            update) and one Idempotency-Key covers every retry, so a connection lost mid-apply is \
            retried without applying twice. Without --yes, asks on a terminal and refuses otherwise. \
            With --publish, every domain in the manifest is published afterwards.
            Exit status: 0 applied or nothing to do; 1 refused, failed, or a publish target failed.
            """
    )
    @OptionGroup var remote: RemoteOptions
    @OptionGroup var options: ManifestOptions

    @Flag(help: "Publish every domain the manifest lists after applying.")
    var publish = false

    @Option(help: "The publish reason (default: \"aasactl apply <file>\").")
    var reason: String?

    @Flag(help: "Apply without asking.")
    var yes = false

    @Option(help: "The Idempotency-Key (default: a new UUID); reuse one to retry an apply by hand.")
    var idempotencyKey: String?

    func run() async throws {
        let (manifest, team) = try await options.load(remote)
        let client = try remote.client
        let reason = publish ? (reason ?? "aasactl apply \((options.file as NSString).lastPathComponent)") : nil
        let body = try manifest.body(publishReason: reason, environment: options.env)
        do {
            let plan = try await client.send(
                .post, ManifestOptions.endpoint(team), query: [("dryRun", "true")],
                body: try manifest.body(environment: options.env))
            let result = try plan.decode(ManifestResult.self)
            let changed = result.changed
            if !remote.quiet && remote.output == .table {
                PlanText.lines(result, applied: false).forEach(CLIOutput.print)
            }
            if !changed && !publish { return }
            if changed && !yes {
                guard isatty(STDIN_FILENO) != 0 else {
                    throw CLIFailure("refusing to apply without --yes: standard input is not a terminal")
                }
                FileHandle.standardError.write(Data("Apply these changes? Only 'yes' applies: ".utf8))
                guard readLine() == "yes" else { throw CLIFailure("not applied") }
            }
            let stateTag = result.stateTag
            let key = idempotencyKey ?? UUID().uuidString.lowercased()
            let applied = try await client.send(
                .post, ManifestOptions.endpoint(team), body: body,
                headers: [("If-Match", stateTag), ("Idempotency-Key", key)])
            if applied.header("Idempotency-Replayed") == "true" {
                remote.say("The server had already applied this request (Idempotency-Key \(key)); its answer follows.")
            }
            let appliedResult = try applied.decode(ManifestResult.self)
            try remote.show(applied, appliedResult) { PlanText.lines($0, applied: true) }
            let domains = appliedResult.domains
            if domains.contains(where: { $0.publishError != nil }) { throw ExitCode(1) }
            for domain in domains { if let publish = domain.publish { try failIfTargetFailed(publish) } }
        } catch let failure as APIFailure {
            if failure.status == 412 {
                CLIOutput.error(
                    """
                    error: the apps or rules this manifest owns changed on the server after the plan; nothing was \
                    applied. Run aasactl apply again.
                    """
                )
            } else {
                PlanText.failure(failure, manifest: manifest).forEach(CLIOutput.error)
            }
            throw ExitCode(1)
        }
    }
}
