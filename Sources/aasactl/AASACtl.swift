import AASAModel
import ArgumentParser
import Foundation

@main
struct AASACtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aasactl",
        abstract: "The apple-app-site-association service's client, and an offline linter and matcher.",
        discussion: """
            Offline (no server): lint, match --file, render, diff FILE FILE, decide, validate.

            With a server (--server/--token, AASA_SERVER/AASA_TOKEN, or a profile from login): \
            every API operation, plus plan and apply for manifests. Tables by default; \
            --output json prints the API's JSON unchanged; --quiet prints nothing on success.

            Exit codes: 0 success; 1 an error (the server's problem is printed: title, detail and \
            each field), or a file with errors; 2 plan found changes; 64 usage error.

            Shell completion: aasactl --generate-completion-script bash|zsh|fish.
            """,
        version: ProductVersion.current,
        subcommands: [
            Lint.self, Match.self, Render.self, Diff.self, Decide.self, Validate.self,
            Login.self, Whoami.self, Teams.self, Tokens.self, Apps.self, Domains.self, Grants.self,
            Rules.self, Order.self, Draft.self, Report.self, Publish.self, Revisions.self, Rollback.self,
            Probe.self, CDN.self, Entitlements.self, Expectations.self, Guardrails.self, Suspend.self, Resume.self,
            Audit.self, Plan.self, Apply.self, Import.self, Environments.self, Builds.self, Promote.self, Webhooks.self,
            Targets.self, Google.self, OIDC.self, Passkeys.self,
        ]
    )

    /// Usage errors exit 64 (EX_USAGE), so that 2 means "plan found changes" and nothing else.
    /// A server's problem prints its title, detail and fields; any failure exits 1.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var async = command as? any AsyncParsableCommand {
                try await async.run()
            } else {
                try command.run()
            }
        } catch let failure as APIFailure {
            CLIOutput.error(
                "error: \(failure.title) (HTTP \(failure.status))" + (failure.detail.map { ": \($0)" } ?? ""))
            for e in failure.errors { CLIOutput.error("  \(e.field): \(e.message) [\(e.rule)]") }
            Foundation.exit(1)
        } catch let failure as CLIFailure {
            CLIOutput.error("error: \(failure.description)")
            Foundation.exit(1)
        } catch {
            if exitCode(for: error) == .validationFailure {
                CLIOutput.error(fullMessage(for: error))
                CLIOutput.error("Run 'aasactl help' for usage.")
                Foundation.exit(64)
            }
            exit(withError: error)
        }
    }
}
